import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { BatchHeaderFields, Sequence } from '@klog/core';
import type { WindowDecision, WindowedBatch } from '@klog/storage';
import { LabFileError } from './lab-file-error.js';
import { workerEnv } from './run-check.js';
import type { HostReply, HostRequest } from './window-protocol.js';

/** A call of the learner's longer than this is a hang: the broker answers the Produce with an error. */
export const DEFAULT_WINDOW_TIMEOUT_MS = 2000;
const LOAD_TIMEOUT_MS = 60_000;

/**
 * What the learner's window decided about a batch, checked: storage's `WindowDecision` (whether to write it,
 * and what to answer), or why there is none: their code threw, did not return, or answered something that is
 * not a verdict, and nothing is written.
 */
export type HostDecision =
  | { readonly kind: 'decided'; readonly decision: WindowDecision }
  | { readonly kind: 'failed'; readonly message: string };

const isOffset = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * The learner's window for `klog serve --window`, on a worker thread the broker calls synchronously
 * (the broker judges a batch before it writes, in one turn of its event loop; a hang in synchronous
 * code can only be ended from outside its thread). A worker that hangs is ended, and the next batch
 * starts a fresh one, whose windows are rebuilt from each partition's active segment.
 */
export class WindowHost {
  #worker: Worker | undefined;
  #port: MessagePort | undefined;
  readonly #done = new Int32Array(new SharedArrayBuffer(4));
  readonly #calls = new Int32Array(new SharedArrayBuffer(8));
  #names: readonly string[] = [];

  private constructor(
    readonly file: string,
    readonly timeoutMs: number,
  ) {}

  /** Start the worker and load the file; throws LabFileError if it does not load. */
  static open(file: string, timeoutMs = DEFAULT_WINDOW_TIMEOUT_MS): WindowHost {
    const host = new WindowHost(file, timeoutMs);
    host.#start();
    return host;
  }

  #start(): void {
    const { port1, port2 } = new MessageChannel();
    Atomics.store(this.#done, 0, 0);
    const worker = new Worker(new URL('./window-worker.js', import.meta.url), {
      workerData: { file: this.file, port: port2, cell: this.#calls.buffer, done: this.#done.buffer },
      transferList: [port2],
      env: workerEnv(),
    });
    worker.unref();
    this.#worker = worker;
    this.#port = port1;
    const ready = this.#wait(LOAD_TIMEOUT_MS);
    if (ready === undefined) {
      this.close();
      throw new LabFileError(`${this.file} did not load within ${LOAD_TIMEOUT_MS / 1000} s`);
    }
    if (ready.kind === 'failed') {
      this.close();
      throw new LabFileError(ready.message);
    }
    if (ready.kind === 'ready') this.#names = ready.names;
  }

  #wait(timeoutMs: number): HostReply | undefined {
    if (Atomics.wait(this.#done, 0, 0, timeoutMs) === 'timed-out') return undefined;
    return receiveMessageOnPort(this.#port!)?.message as HostReply | undefined;
  }

  #call(request: HostRequest): HostReply | undefined {
    if (this.#worker === undefined) this.#start();
    Atomics.store(this.#done, 0, 0);
    this.#port!.postMessage(request);
    return this.#wait(this.timeoutMs);
  }

  /** Ask the learner's window about one batch; `headers` reads the partition's active segment if it must. */
  decide(batch: WindowedBatch, headers: () => readonly BatchHeaderFields[]): HostDecision {
    let reply = this.#call({ kind: 'decide', batch });
    if (reply?.kind === 'need-headers') reply = this.#call({ kind: 'decide', batch, headers: headers() });
    if (reply === undefined) {
      const running = Atomics.load(this.#calls, 1);
      const fn = this.#names[running - 1] ?? 'window';
      this.close();
      return {
        kind: 'failed',
        message: `your ${fn} did not return within ${this.timeoutMs / 1000} s; it was stopped, and the next batch starts a fresh window rebuilt from the active segment`,
      };
    }
    if (reply.kind === 'threw') return { kind: 'failed', message: reply.message };
    if (reply.kind !== 'decided')
      return { kind: 'failed', message: `the window's worker answered ${reply.kind}` };
    return checked(reply, batch);
  }

  close(): void {
    void this.#worker?.terminate();
    this.#port?.close();
    this.#worker = undefined;
    this.#port = undefined;
  }
}

function checked(reply: Extract<HostReply, { kind: 'decided' }>, batch: WindowedBatch): HostDecision {
  const { answer, wrote } = reply;
  const where = `${batch.logEndOffset}..${batch.logEndOffset + batch.records - 1}`;
  const bad = (why: string): HostDecision => ({ kind: 'failed', message: `your appendBatch ${why}` });
  const decided = (decision: WindowDecision): HostDecision => ({ kind: 'decided', decision });
  switch (answer['kind']) {
    case 'Append':
      if (!wrote) return bad('answered Append without calling log.append');
      if (
        answer['firstOffset'] !== batch.logEndOffset ||
        answer['lastOffset'] !== batch.logEndOffset + batch.records - 1
      ) {
        return bad(
          `answered Append at ${String(answer['firstOffset'])}..${String(answer['lastOffset'])}, but log.append put it at ${where}`,
        );
      }
      return decided({ verdict: { kind: 'Append' } });
    case 'Duplicate': {
      const { firstOffset, lastOffset, timestamp } = answer;
      if (!isOffset(firstOffset) || !isOffset(lastOffset) || !Number.isSafeInteger(timestamp)) {
        return bad('answered Duplicate without whole-number firstOffset, lastOffset and timestamp');
      }
      return decided({
        verdict: { kind: 'Duplicate', firstOffset, lastOffset, timestamp: timestamp as number },
        written: wrote,
      });
    }
    case 'OutOfOrderSequence': {
      const { expected, got } = answer;
      if (!isOffset(expected) || !isOffset(got))
        return bad('answered OutOfOrderSequence without whole-number expected and got');
      return decided({
        verdict: { kind: 'OutOfOrderSequence', expected: expected as Sequence, got: got as Sequence },
        written: wrote,
      });
    }
    default:
      return bad(
        `answered kind ${JSON.stringify(answer['kind'])}: not Append, Duplicate or OutOfOrderSequence`,
      );
  }
}
