import { existsSync, readdirSync, statSync } from 'node:fs';
import { MAX_SEQUENCE } from '@klog/core';
import { UsageError } from '../errors.js';

export interface IdemDemoOptions {
  readonly pid: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly resend: boolean;
  readonly nowMs: number;
  /** Keep the partitions here instead of in a temporary directory. */
  readonly dataDir: string | undefined;
}

/** The fill before A goes in one batch, which must stay well under Kafka's 1 MiB batch limit. */
export const MAX_FIRST_SEQ = 10_000;
export const MAX_BATCH_RECORDS = 1_000;
/** The demo also uses pid + 1 for "a new process", so the pid must leave room for it. */
export const MAX_DEMO_PID = Number.MAX_SAFE_INTEGER - 1;

function wholeNumber(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} ${text}: expected a whole number`);
  return Number(text);
}

export function parsePid(text: string): number {
  if (!/^\d+$/.test(text)) {
    throw new UsageError(`--pid ${text}: a producer id is a whole number from 0 to ${MAX_DEMO_PID}`);
  }
  const pid = Number(text);
  if (!Number.isSafeInteger(pid) || pid > MAX_DEMO_PID) {
    throw new UsageError(
      `--pid ${text}: past ${MAX_DEMO_PID}, the largest the demo can use (pid + 1 must stay below 2^53)`,
    );
  }
  return pid;
}

export function parseSeqRange(text: string): { first: number; last: number } {
  const match = /^(\d+)\.\.(\d+)$/.exec(text);
  if (match === null) throw new UsageError(`--seq ${text}: expected A..B with whole numbers, e.g. 7..9`);
  const [first, last] = [Number(match[1]), Number(match[2])];
  for (const n of [first, last]) {
    if (!Number.isSafeInteger(n) || n > MAX_SEQUENCE) {
      throw new UsageError(
        `--seq ${text}: ${match[first === n ? 1 : 2]} is past the largest sequence number ${MAX_SEQUENCE}`,
      );
    }
  }
  if (first > last) throw new UsageError(`--seq ${text}: the first sequence is greater than the last`);
  if (first > MAX_FIRST_SEQ) {
    throw new UsageError(`--seq ${text}: the demo sends 0..A-1 first, so A can be at most ${MAX_FIRST_SEQ}`);
  }
  if (last - first + 1 > MAX_BATCH_RECORDS) {
    throw new UsageError(
      `--seq ${text}: a batch of at most ${MAX_BATCH_RECORDS} records, this one has ${last - first + 1}`,
    );
  }
  return { first, last };
}

export function parseNowMs(text: string): number {
  const n = wholeNumber('--now-ms', text);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--now-ms ${text}: past the largest safe timestamp`);
  return n;
}

/** --data-dir must be a new or empty directory: the demo never mixes its partitions with other data. */
export function checkDataDir(dir: string): string {
  if (!existsSync(dir)) return dir;
  if (!statSync(dir).isDirectory()) throw new UsageError(`--data-dir ${dir}: is a file, not a directory`);
  if (readdirSync(dir).length > 0) {
    throw new UsageError(
      `--data-dir ${dir}: is not empty; give a new or empty directory so no data is mixed`,
    );
  }
  return dir;
}
