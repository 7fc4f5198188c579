import type { Logger } from '../logging/logger.js';

/**
 * Faults for teaching (`klog serve --drop-acks N --close-after-append M`): the lost ack of the chapter, made
 * to happen on a real socket. Kafka has no such switch; its own tests lose responses with a proxy or by
 * killing brokers. Here the broker itself loses them, at the one moment the chapter is about: after a
 * Produce request's batches are on the log, before its response is written.
 *
 * Deterministic and count-limited. Only Produce requests that *wrote* records are counted: a retry that the
 * producer state answers as a duplicate writes nothing and is answered as usual (else the retry of a lost ack
 * would lose its ack too, for ever), and an acks=0 request has no response to lose. The first `dropAcks` such
 * requests get no response (the connection stays open: the client times out and retries), the next
 * `closeAfterAppend` get their connection closed instead (the client reconnects and retries), and every
 * later one is answered.
 */
export interface FaultPlan {
  readonly dropAcks: number;
  readonly closeAfterAppend: number;
}

export const NO_FAULTS: FaultPlan = { dropAcks: 0, closeAfterAppend: 0 };

/** The records one partition of a Produce request appended: offsets `firstOffset..lastOffset`. */
export interface WrittenBatch {
  readonly topic: string;
  readonly partition: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
}

/** What becomes of a Produce response once its batches are written. */
export type ProduceFault =
  | { readonly kind: 'answer' }
  | { readonly kind: 'drop'; readonly line: string }
  | { readonly kind: 'close'; readonly line: string };

const ANSWER: ProduceFault = { kind: 'answer' };

function describe(written: readonly WrittenBatch[]): string {
  return written.map((w) => `${w.topic}-${w.partition} offsets ${w.firstOffset}..${w.lastOffset}`).join(', ');
}

/** Counts the Produce requests that wrote records, and says which of them lose their response. */
export class FaultInjector {
  #writes = 0;
  #dropped = 0;
  #closed = 0;

  constructor(
    readonly plan: FaultPlan,
    private readonly logger: Logger,
  ) {}

  /** Whether any fault was asked for. */
  get active(): boolean {
    return this.plan.dropAcks > 0 || this.plan.closeAfterAppend > 0;
  }

  /** Faults done so far. */
  get done(): { readonly dropped: number; readonly closed: number } {
    return { dropped: this.#dropped, closed: this.#closed };
  }

  /**
   * Called once per Produce request that expects a response, after its partitions were handled, with the
   * batches it appended (none for a request whose every partition was a duplicate or an error). A fault is
   * logged in one line, as it happens.
   */
  afterAppend(written: readonly WrittenBatch[]): ProduceFault {
    if (written.length === 0 || !this.active) return ANSWER;
    const n = ++this.#writes;
    if (n <= this.plan.dropAcks) {
      this.#dropped++;
      const line = `fault: dropped the response to produce #${n}, ${describe(written)}`;
      this.logger.info(line);
      return { kind: 'drop', line };
    }
    if (n <= this.plan.dropAcks + this.plan.closeAfterAppend) {
      this.#closed++;
      const line = `fault: closed the connection instead of answering produce #${n}, ${describe(written)}`;
      this.logger.info(line);
      return { kind: 'close', line };
    }
    return ANSWER;
  }
}
