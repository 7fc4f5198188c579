// What a failed stage did, send by send, as a file the site's simulator opens (its "open a lab history"
// panel, apps/docs/src/components/simulator/lab-history.ts): the learner sees the batches on a timeline
// and what went to the log, not only the report's text. The stage's producers record into the current
// history as they call the learner's window; the worker attaches it to the stage's failure.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Row } from './verdict-rows.js';

/** The format's version: the simulator refuses another. */
export const LAB_HISTORY_VERSION = 1;

/** Beside the learner's file; not a dot file, so a browser's file picker shows it. */
export const HISTORY_FILE = 'klog-lab-history.json';

/** The simulator's control that opens the file, as the site labels it. */
export const OPEN_HISTORY = 'เปิดประวัติจาก klog lab check';

/** One send of a batch and what came back: the window's verdict, or the broker's answer. */
export interface HistorySend {
  /** Who sent it ("pid 12 · epoch 3", "producer A"). */
  readonly who: string;
  /** The batch's sequences, `first..last`. */
  readonly seq: string;
  /** The answer, in the report's words. */
  readonly answer: string;
}

/** A batch the log holds: its offsets, and who wrote which sequences there. */
export interface HistoryWrite {
  readonly offsets: string;
  readonly who: string;
  readonly seq: string;
}

export interface LabHistory {
  readonly version: typeof LAB_HISTORY_VERSION;
  readonly stage: string;
  readonly title: string;
  readonly seed: number;
  readonly summary: string;
  /** The failed check's fields (the window among them), expected beside actual. */
  readonly rows: readonly Row[];
  readonly sends: readonly HistorySend[];
  readonly log: readonly HistoryWrite[];
}

export const range = (first: number, last: number) => (first === last ? `${first}` : `${first}..${last}`);

/** What the running stage has done so far: its sends and the log's writes, in order. */
export interface StageTrace {
  readonly sends: HistorySend[];
  readonly log: HistoryWrite[];
}

let current: StageTrace = { sends: [], log: [] };

/** A stage starts with an empty trace. */
export function startTrace(): void {
  current = { sends: [], log: [] };
}

export function trace(): StageTrace {
  return current;
}

/** Write the history beside the learner's file; returns where. */
export function writeHistory(labFile: string, history: LabHistory): string {
  const path = join(dirname(labFile), HISTORY_FILE);
  writeFileSync(path, `${JSON.stringify(history, null, 2)}\n`);
  return path;
}
