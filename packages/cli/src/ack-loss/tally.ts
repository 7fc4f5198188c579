import type { Told } from './clients/client.js';
import type { LogRecord } from './read-back.js';

/** The records one fault's Produce request had written: `topic-partition offsets first..last`. */
export interface FaultedWrite {
  readonly line: string;
  readonly kind: 'drop' | 'close';
  readonly ranges: readonly {
    readonly topic: string;
    readonly partition: number;
    readonly first: number;
    readonly last: number;
  }[];
}

/** Reads a broker's `fault: …` line back into what it says. */
export function parseFault(line: string): FaultedWrite {
  const kind = line.startsWith('fault: dropped')
    ? 'drop'
    : line.startsWith('fault: closed')
      ? 'close'
      : undefined;
  if (kind === undefined) throw new Error(`not a fault line: ${line}`);
  const ranges = [...line.matchAll(/(\S+)-(\d+) offsets (\d+)\.\.(\d+)/g)].map((m) => ({
    topic: m[1]!,
    partition: Number(m[2]),
    first: Number(m[3]),
    last: Number(m[4]),
  }));
  return { line, kind, ranges };
}

/** What one run came to: the application's side (what it was told) against the log's (what is on disk). */
export interface Tally {
  readonly sent: number;
  /** Messages the application was told were written (a delivery report or a resolved send, with an offset). */
  readonly acked: number;
  /** Messages the application was told had failed. */
  readonly failed: number;
  /** The first failure the application was told, if any. */
  readonly firstError: string | undefined;
  readonly onLog: number;
  /** Records beyond the first copy of a message. */
  readonly duplicates: number;
  /** Messages sent that are nowhere on the log. */
  readonly missing: number;
  /** Records whose key is none of the messages sent (there must be none). */
  readonly strangers: number;
  /** Acked messages whose told offset holds that very message on the log. */
  readonly toldRight: number;
  /** Every offset each message is at, in log order. */
  readonly copies: ReadonlyMap<string, readonly number[]>;
  /** The offset each acked message was told. */
  readonly told: ReadonlyMap<string, number>;
}

/**
 * Counts a run. A report that does not name its message (kcat's) is matched to one: in the order sent when
 * `inOrder` (one request in flight, so librdkafka's reports come in the order the messages were produced),
 * else by the message the log holds at the offset told — which then must be a different message for each
 * report, or the reports are not counted as right.
 */
export function tally(
  keys: readonly string[],
  told: readonly Told[],
  records: readonly LogRecord[],
  inOrder: boolean,
): Tally {
  const sent = new Set(keys);
  const copies = new Map<string, number[]>();
  const at = new Map<number, LogRecord>();
  let strangers = 0;
  for (const r of records) {
    at.set(r.offset, r);
    if (r.key === null || !sent.has(r.key)) {
      strangers++;
      continue;
    }
    const list = copies.get(r.key) ?? [];
    list.push(r.offset);
    copies.set(r.key, list);
  }
  const toldAt = new Map<string, number>();
  let acked = 0;
  let failed = 0;
  let firstError: string | undefined;
  let toldRight = 0;
  told.forEach((t, i) => {
    const key =
      t.key ?? (inOrder ? keys[i] : 'offset' in t ? (at.get(t.offset)?.key ?? undefined) : undefined);
    if (!('offset' in t)) {
      failed++;
      firstError ??= t.error;
      return;
    }
    acked++;
    if (key === undefined || toldAt.has(key)) return;
    toldAt.set(key, t.offset);
    if (at.get(t.offset)?.key === key) toldRight++;
  });
  let duplicates = 0;
  for (const offsets of copies.values()) duplicates += offsets.length - 1;
  return {
    sent: keys.length,
    acked,
    failed,
    firstError,
    onLog: records.length,
    duplicates,
    missing: keys.filter((k) => !copies.has(k)).length,
    strangers,
    toldRight,
    copies,
    told: toldAt,
  };
}

/** The offsets that hold a copy written before the last copy of the same message (what a retry left behind). */
export function earlierCopies(t: Tally): number[] {
  return [...t.copies.values()].flatMap((offsets) => offsets.slice(0, -1)).sort((a, b) => a - b);
}

/** The offsets a fault's requests had written on `topic-partition`. */
export function faultedOffsets(faults: readonly FaultedWrite[], topic: string, partition: number): number[] {
  const out: number[] = [];
  for (const f of faults) {
    for (const r of f.ranges) {
      if (r.topic !== topic || r.partition !== partition) continue;
      for (let o = r.first; o <= r.last; o++) out.push(o);
    }
  }
  return out.sort((a, b) => a - b);
}
