// The simulator's world: a producer the reader drives and a broker that judges every request
// with @klog/core's real `judge`, keeps core's `ProducerState` (the 5-batch window per producer
// id), writes a log in segments and, on restart, rebuilds its windows from the active segment
// only, as the chapter's broker does. Pure: the page renders it, the unit tests drive it.
import {
  BatchMetadata,
  judge,
  ProducerState,
  type ProducerStateEntry,
  toProducerEpoch,
  toProducerId,
  toSequence,
  type Verdict,
} from '@klog/core';

/** Records per batch, in the chapter's shapes (0..1 2..3 4..5 6..6 7..9), then single records. */
const SHAPES = [2, 2, 2, 1, 3];
const EPOCH = toProducerEpoch(0);
const NOW_MS = 1_700_000_000_000;
export const FIRST_PID = 1000;
export const DEFAULT_IN_FLIGHT = 5;
export const MAX_IN_FLIGHT = 8;
/**
 * The chapter's narrowing demo: segment.bytes = 256 and every batch at least 173 bytes, so the
 * size rule (Kafka's `UnifiedLog.maybeRoll`, storage's `maybe-roll` region) opens a new segment
 * before each batch that follows another.
 */
export const SMALL_SEGMENT_BYTES = 256;

export interface LoggedBatch {
  readonly pid: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly segment: number;
}

/** What the producer knows of a batch it sent. */
export type SentStatus =
  | { readonly kind: 'waiting'; readonly why: 'request-lost' | 'ack-lost' }
  | {
      readonly kind: 'answered';
      readonly verdict: Verdict;
      readonly firstOffset: number;
      readonly lastOffset: number;
      /**
       * Where the broker's log holds this very batch, when the answer is a refusal: the chapter's point
       * that a batch the producer hears failed (evicted, then resent) may be on the log all along.
       */
      readonly onLog?: { readonly firstOffset: number; readonly lastOffset: number };
    };

export interface SentBatch {
  readonly firstSeq: number;
  readonly lastSeq: number;
  status: SentStatus;
  /** Every status it had, oldest first, the current one last: a later answer does not erase an earlier. */
  readonly history: SentStatus[];
}

/** One thing that happened, for the page's running account. */
export type SimEvent =
  | {
      readonly kind: 'produce';
      readonly pid: number;
      readonly range: string;
      readonly resend: boolean;
      /** What became of it: answered, or which half of the trip was lost. */
      readonly fate: 'answered' | 'ack-lost' | 'request-lost';
      readonly verdict: Verdict | undefined;
      readonly firstOffset: number;
      readonly lastOffset: number;
      readonly evicted: readonly string[];
    }
  | {
      readonly kind: 'restart';
      readonly windows: readonly { pid: number; window: readonly string[]; before: number }[];
    }
  | { readonly kind: 'roll'; readonly segment: number; readonly baseOffset: number }
  | {
      /** A one-record batch at a sequence the reader picked (the chapter's "13 while 10 is due"). */
      readonly kind: 'probe';
      readonly pid: number;
      readonly range: string;
      readonly verdict: Verdict;
      readonly firstOffset: number;
      readonly lastOffset: number;
    }
  | {
      readonly kind: 'new-session';
      readonly pid: number;
      readonly abandoned: number;
      readonly previous: number;
    };

export function rangeOf(first: number, last: number): string {
  return `${first}..${last}`;
}

export function windowOf(entry: ProducerStateEntry | undefined): string[] {
  return (entry?.batches ?? []).map((b) => rangeOf(b.firstSeq(), b.lastSeq));
}

/** The broker: core's producer state, the log, its segments. */
export class SimBroker {
  state = new ProducerState();
  readonly log: LoggedBatch[] = [];
  /** Index of the active segment; rolled by hand, or by size when `segmentBytes` is small. */
  activeSegment = 0;
  /** Undefined: segments never roll by size (a large segment.bytes); else the chapter's 256. */
  segmentBytes: number | undefined;

  get logEndOffset(): number {
    return (this.log.at(-1)?.lastOffset ?? -1) + 1;
  }

  /** Judge a request with core's `judge`; only an Append writes, then the window learns the batch. */
  produce(pid: number, firstSeq: number, lastSeq: number): { verdict: Verdict; evicted: string[] } {
    const entry = this.state.entry(toProducerId(pid));
    const verdict = judge(entry, EPOCH, toSequence(firstSeq), toSequence(lastSeq));
    if (verdict.kind !== 'Append') return { verdict, evicted: [] };
    const before = windowOf(entry);
    // Every batch is larger than half of 256 bytes: a non-empty active segment cannot take another.
    if (this.segmentBytes !== undefined) this.roll();
    const firstOffset = this.logEndOffset;
    const delta = lastSeq - firstSeq;
    const logged = {
      pid,
      firstSeq,
      lastSeq,
      firstOffset,
      lastOffset: firstOffset + delta,
      segment: this.activeSegment,
    };
    this.log.push(logged);
    entry.addBatch(EPOCH, this.metadata(logged));
    const after = new Set(windowOf(entry));
    return { verdict, evicted: before.filter((r) => !after.has(r)) };
  }

  /** A new active segment, if the current one holds anything. */
  roll(): boolean {
    if (!this.log.some((b) => b.segment === this.activeSegment)) return false;
    this.activeSegment++;
    return true;
  }

  /** Close and reopen: the windows are rebuilt from the active segment's batches alone. */
  restart(): void {
    this.state = new ProducerState();
    for (const logged of this.log) {
      if (logged.segment !== this.activeSegment) continue;
      this.state.entry(toProducerId(logged.pid)).addBatch(EPOCH, this.metadata(logged));
    }
  }

  private metadata(b: LoggedBatch): BatchMetadata {
    return new BatchMetadata(
      toSequence(b.lastSeq),
      b.lastOffset,
      b.lastSeq - b.firstSeq,
      NOW_MS + b.firstOffset,
    );
  }
}

/** The reader's producer and the broker it talks to. */
export class Sandbox {
  broker = new SimBroker();
  pid = FIRST_PID;
  /** Batches of the current session, in the order first sent. */
  sent: SentBatch[] = [];
  inFlightCap = DEFAULT_IN_FLIGHT;

  get segmentBytes(): number | undefined {
    return this.broker.segmentBytes;
  }
  set segmentBytes(bytes: number | undefined) {
    this.broker.segmentBytes = bytes;
  }

  nextRange(): { firstSeq: number; lastSeq: number } {
    const last = this.sent.at(-1);
    const firstSeq = last === undefined ? 0 : last.lastSeq + 1;
    return { firstSeq, lastSeq: firstSeq + (SHAPES[this.sent.length] ?? 1) - 1 };
  }

  /** Sent and not answered: what max.in.flight.requests.per.connection counts. */
  get waiting(): number {
    return this.sent.filter((b) => b.status.kind === 'waiting').length;
  }

  /** Not on the log as far as the producer knows: still waiting, or refused as out of order. */
  needsResend(batch: SentBatch): boolean {
    return batch.status.kind === 'waiting' || batch.status.verdict.kind === 'OutOfOrderSequence';
  }

  canSendNext(): boolean {
    return this.waiting < this.inFlightCap;
  }

  /** Send the next batch; the request or the ack may be lost on the way. */
  send(fate: 'answered' | 'ack-lost' | 'request-lost'): SimEvent {
    if (!this.canSendNext()) throw new Error(`${this.inFlightCap} batches are waiting for an answer`);
    const { firstSeq, lastSeq } = this.nextRange();
    const status: SentStatus = { kind: 'waiting', why: 'request-lost' };
    const batch: SentBatch = { firstSeq, lastSeq, status, history: [] };
    this.sent.push(batch);
    return this.deliver(batch, fate, false);
  }

  /** Send a batch again, same sequence (the producer's retry; or, for an answered one, the chapter's experiment). */
  resend(index: number): SimEvent {
    const batch = this.sent[index];
    if (batch === undefined) throw new Error(`no batch ${index}`);
    return this.deliver(batch, 'answered', true);
  }

  private deliver(
    batch: SentBatch,
    fate: 'answered' | 'ack-lost' | 'request-lost',
    resend: boolean,
  ): SimEvent {
    const range = rangeOf(batch.firstSeq, batch.lastSeq);
    if (fate === 'request-lost') {
      this.#record(batch, { kind: 'waiting', why: 'request-lost' });
      return {
        kind: 'produce',
        pid: this.pid,
        range,
        resend,
        fate,
        verdict: undefined,
        firstOffset: -1,
        lastOffset: -1,
        evicted: [],
      };
    }
    const leo = this.broker.logEndOffset;
    const { verdict, evicted } = this.broker.produce(this.pid, batch.firstSeq, batch.lastSeq);
    const [firstOffset, lastOffset] =
      verdict.kind === 'Append'
        ? [leo, leo + batch.lastSeq - batch.firstSeq]
        : verdict.kind === 'Duplicate'
          ? [verdict.firstOffset, verdict.lastOffset]
          : [-1, -1];
    const onLog =
      verdict.kind === 'OutOfOrderSequence'
        ? this.broker.log.find(
            (b) => b.pid === this.pid && b.firstSeq === batch.firstSeq && b.lastSeq === batch.lastSeq,
          )
        : undefined;
    this.#record(
      batch,
      fate === 'ack-lost'
        ? { kind: 'waiting', why: 'ack-lost' }
        : {
            kind: 'answered',
            verdict,
            firstOffset,
            lastOffset,
            ...(onLog === undefined
              ? {}
              : { onLog: { firstOffset: onLog.firstOffset, lastOffset: onLog.lastOffset } }),
          },
    );
    return { kind: 'produce', pid: this.pid, range, resend, fate, verdict, firstOffset, lastOffset, evicted };
  }

  #record(batch: SentBatch, status: SentStatus): void {
    batch.status = status;
    batch.history.push(status);
  }

  /**
   * A batch of one record at `seq`, made by hand and sent once with the producer's id and epoch:
   * the chapter's gap ("13 while the broker waits for 10"). It is not the producer's own next
   * batch, so it does not join the list of sent batches.
   */
  probe(seq: number): SimEvent {
    const leo = this.broker.logEndOffset;
    const { verdict } = this.broker.produce(this.pid, seq, seq);
    const [firstOffset, lastOffset] =
      verdict.kind === 'Append'
        ? [leo, leo]
        : verdict.kind === 'Duplicate'
          ? [verdict.firstOffset, verdict.lastOffset]
          : [-1, -1];
    return { kind: 'probe', pid: this.pid, range: rangeOf(seq, seq), verdict, firstOffset, lastOffset };
  }

  restart(): SimEvent {
    const sizes = new Map(
      this.broker.state.producerIds().map((pid) => [pid, windowOf(this.broker.state.get(pid)).length]),
    );
    this.broker.restart();
    const windows = this.broker.state.producerIds().map((pid) => ({
      pid,
      window: windowOf(this.broker.state.get(pid)),
      before: sizes.get(pid) ?? 0,
    }));
    return { kind: 'restart', windows };
  }

  roll(): SimEvent | undefined {
    if (!this.broker.roll()) return undefined;
    return { kind: 'roll', segment: this.broker.activeSegment, baseOffset: this.broker.logEndOffset };
  }

  /** A new process: a new producer id, sequences from 0; what the old one still waited for is abandoned. */
  newSession(): SimEvent {
    const previous = this.pid;
    const abandoned = this.waiting;
    this.pid++;
    this.sent = [];
    return { kind: 'new-session', pid: this.pid, abandoned, previous };
  }
}
