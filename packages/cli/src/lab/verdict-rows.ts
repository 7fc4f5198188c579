import {
  type BatchLog,
  decrementSequence,
  type Sequence,
  type WindowEntry,
  type WrittenBatch,
} from '@klog/core';

/** One field of an answer: what the chapter says it must be, what the learner's code gave. */
export interface Row {
  readonly field: string;
  readonly expected: string;
  readonly actual: string;
}

/** The first failed check of a stage: the request, every field compared, and a one-line summary. */
export interface StageFailure {
  readonly request: string;
  readonly rows: readonly Row[];
  readonly summary: string;
}

export class StageFailed extends Error {
  override readonly name = 'StageFailed';
  constructor(readonly failure: StageFailure) {
    super(failure.summary);
  }
}

export function show(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '(ไม่มี)';
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** Compare an answer field by field (kind first) and any further rows; throws StageFailed at a difference. */
export function expectFields(
  request: string,
  expected: Readonly<Record<string, unknown>>,
  actual: unknown,
  more: readonly Row[] = [],
): void {
  const rows: Row[] = Object.entries(expected).map(([key, want]) => ({
    field: key,
    expected: show(want),
    actual: show(field(actual, key)),
  }));
  rows.push(...more);
  const wrong = rows.find((r) => r.expected !== r.actual);
  if (wrong === undefined) return;
  throw new StageFailed({
    request,
    rows,
    summary: `${request}: ${wrong.field} ควรเป็น ${wrong.expected} แต่ได้ ${wrong.actual}`,
  });
}

/** A batch a producer of the lab sent, and where the log put it the first time. */
export interface SentBatch {
  readonly epoch: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly records: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly timestamp: number;
}

/** The window as seen from outside: each batch as `first..last@firstOffset..lastOffset`. */
export function windowOf(entry: WindowEntry): string {
  let batches: unknown;
  try {
    batches = entry.batches;
  } catch (error) {
    return `(batches threw: ${show(error instanceof Error ? error.message : error)})`;
  }
  if (!Array.isArray(batches)) return `(batches is ${show(batches)}, not an array)`;
  return `[${batches
    .map((b: { lastSeq: number; lastOffset: number; offsetDelta: number }) => {
      const first = decrementSequence(b.lastSeq as Sequence, b.offsetDelta);
      return `${first}..${b.lastSeq}@${b.lastOffset - b.offsetDelta}..${b.lastOffset}`;
    })
    .join(' ')}]`;
}

export function expectedWindow(batches: readonly SentBatch[]): string {
  return `[${batches.map((b) => `${b.firstSeq}..${b.lastSeq}@${b.firstOffset}..${b.lastOffset}`).join(' ')}]`;
}

export function windowRow(entry: WindowEntry, batches: readonly SentBatch[]): Row {
  return { field: 'window', expected: expectedWindow(batches), actual: windowOf(entry) };
}

export function epochRow(entry: WindowEntry, epoch: number): Row {
  return { field: 'producerEpoch', expected: String(epoch), actual: show(entry.producerEpoch) };
}

/**
 * The partition's log as the lab's appends see it: it starts where earlier writers left it (a drawn
 * offset) and counts what is written, so "nothing written" is a fact to check, not a claim.
 */
export class LabLog implements BatchLog {
  #end: number;
  appends = 0;
  constructor(
    start: number,
    readonly clockMs: number,
  ) {
    this.#end = start;
  }

  get logEndOffset(): number {
    return this.#end;
  }

  append(records: number): WrittenBatch {
    if (!Number.isSafeInteger(records) || records < 1) {
      throw new RangeError(`log.append takes the batch's record count (1 or more), got ${show(records)}`);
    }
    const firstOffset = this.#end;
    this.#end += records;
    this.appends++;
    return { firstOffset, lastOffset: this.#end - 1, timestamp: this.clockMs + firstOffset };
  }
}

export function logEndRow(log: LabLog, expected: number): Row {
  return {
    field: 'log end offset',
    expected: `${expected}`,
    actual: `${log.logEndOffset}`,
  };
}
