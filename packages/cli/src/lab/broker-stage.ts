// The broker stage of `klog lab check`: the learner's window behind a real broker (the one `klog serve`
// runs, in this process, on 127.0.0.1 at a port the kernel picks, over a temporary data directory), fed by
// raw Produce requests over sockets as a Kafka client sends them: five in flight, lost acks (the broker's
// teaching faults), a resend merged from two batches, a segment roll and a restart, and an epoch bump. The
// history of sends, acks and reads is then checked (broker-history.ts).
import { readdirSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';
import { Broker, createLogger } from '@klog/broker';
import { decodeResponse, encodeRequest, errorName, FrameDecoder, Produce } from '@klog/protocol';
import { Partition } from '@klog/storage';
import { buildProducerBatch } from '@klog/storage/internals';
import { AdminClient } from '../topics/admin-client.js';
import {
  type Anomaly,
  checkHistory,
  type SendEvent,
  type SendOutcome,
  type SentBatch,
} from './broker-history.js';
import { servedWindow } from './served-window.js';
import { StageFailed } from './verdict-rows.js';
import { WindowHost } from './window-host.js';

const TOPIC = 'lab';
/** Small segments: the run rolls a few times, so the restart rebuilds from an active segment that is not the first. */
const SEGMENT_BYTES = 600;
/** Kafka's `max.in.flight.requests.per.connection` at its idempotent maximum. */
const IN_FLIGHT = 5;
/** A batch still unanswered after this many sends: the stage stops rather than loop. */
const MAX_ATTEMPTS = 6;

/** Why the run could not go on: the learner's window failed a Produce, or the broker did something the stage cannot use. */
class RunStopped extends Error {
  constructor(
    readonly batch: SentBatch,
    message: string,
  ) {
    super(message);
  }
}

/** One running broker, its fault lines counted as they are logged. */
interface Running {
  readonly broker: Broker;
  readonly host: WindowHost;
  readonly port: number;
  /** `fault: dropped …` lines so far. */
  dropped: number;
  /** What the window's failures said, in order. */
  readonly windowFailures: string[];
  onDrop: (() => void) | undefined;
}

async function startBroker(
  dataDir: string,
  file: string,
  faults: { dropAcks: number; closeAfterAppend: number },
): Promise<Running> {
  const host = WindowHost.open(file);
  const running: Partial<Running> & {
    dropped: number;
    windowFailures: string[];
    onDrop: (() => void) | undefined;
  } = {
    onDrop: undefined,
    dropped: 0,
    windowFailures: [],
  };
  const logger = createLogger('info', (_level, line) => {
    if (line.startsWith('fault: dropped')) {
      running.dropped++;
      running.onDrop?.();
    }
  });
  try {
    const broker = await Broker.start({
      dataDir,
      host: '127.0.0.1',
      port: 0,
      segmentBytes: SEGMENT_BYTES,
      ...faults,
      logger,
      producerWindow: servedWindow(host, (line) => running.windowFailures.push(line)),
    });
    return Object.assign(running, { broker, host, port: broker.address.port }) as Running;
  } catch (error) {
    host.close();
    throw error;
  }
}

async function stopBroker(running: Running): Promise<void> {
  await running.broker.close();
  running.host.close();
}

/** One client connection sending Produce v7 requests, pipelined, answered in order. */
class Connection {
  readonly #socket: Socket;
  readonly #frames = new FrameDecoder();
  readonly #waiting = new Map<number, (outcome: SendOutcome) => void>();
  #closed = false;
  #onSettle: (() => void) | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk) => {
      this.#frames.push(chunk);
      for (let frame = this.#frames.next(); frame !== undefined; frame = this.#frames.next()) {
        const { correlationId, body } = decodeResponse(Produce, 7, frame);
        const answer = body.responses[0]?.partitionResponses[0];
        const done = this.#waiting.get(correlationId);
        this.#waiting.delete(correlationId);
        done?.(
          answer === undefined
            ? { kind: 'error', error: 'no partition in the response' }
            : answer.errorCode === 0
              ? { kind: 'ack', baseOffset: Number(answer.baseOffset) }
              : { kind: 'error', error: errorName(answer.errorCode) },
        );
        this.#onSettle?.();
      }
    });
    const lose = () => {
      this.#closed = true;
      for (const done of this.#waiting.values())
        done({ kind: 'lost', why: 'broker ปิด connection แทนการตอบ' });
      this.#waiting.clear();
      this.#onSettle?.();
    };
    socket.on('close', lose);
    socket.on('error', () => {});
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Send `batches` pipelined on this connection, and resolve once each is answered or known lost: its answer
   * came, its connection closed, or the broker logged that it dropped it (`dropped()` counts those lines; a
   * connection answers in order, so once every request is answered or dropped the unanswered ones are the
   * dropped ones).
   */
  sendAll(
    batches: readonly SentBatch[],
    running: Running,
    correlation: { next: number },
  ): Promise<SendOutcome[]> {
    const outcomes: (SendOutcome | undefined)[] = batches.map(() => undefined);
    const droppedBefore = running.dropped;
    return new Promise((resolve) => {
      const settle = () => {
        const answered = outcomes.filter((o) => o !== undefined).length;
        if (answered + (running.dropped - droppedBefore) < batches.length && !this.#closed) return;
        this.#onSettle = undefined;
        running.onDrop = undefined;
        resolve(outcomes.map((o) => o ?? { kind: 'lost', why: 'broker ทิ้งคำตอบ (--drop-acks)' }));
      };
      this.#onSettle = settle;
      running.onDrop = settle;
      batches.forEach((batch, i) => {
        const correlationId = correlation.next++;
        this.#waiting.set(correlationId, (outcome) => {
          outcomes[i] = outcome;
        });
        const records = buildProducerBatch(
          batch.values.map((v) => ({ key: null, value: Buffer.from(v) })),
          0,
          Date.now(),
          { producerId: batch.producerId, producerEpoch: batch.epoch, baseSequence: batch.firstSeq },
        );
        this.#socket.write(
          encodeRequest(Produce, 7, correlationId, 'klog-lab', {
            transactionalId: null,
            acks: -1,
            timeoutMs: 30_000,
            topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }],
          }),
        );
      });
      if (batches.length === 0) settle();
    });
  }

  close(): void {
    this.#socket.removeAllListeners('close');
    this.#socket.destroy();
  }
}

/** A client: one idempotent producer (id, epoch, next sequence) on its own connection. */
class Client {
  epoch: number;
  next = 0;
  #count = 0;
  #connection: Connection | undefined;

  constructor(
    readonly name: string,
    readonly letter: string,
    readonly producerId: number,
    epoch: number,
    readonly run: Run,
  ) {
    this.epoch = epoch;
  }

  /** A new batch of `records` values at the next sequence. */
  batch(records: number, values?: readonly string[], firstSeq = this.next): SentBatch {
    const name = `${this.letter}${this.#count++}`;
    const batch: SentBatch = {
      client: this.name,
      name,
      producerId: this.producerId,
      epoch: this.epoch,
      firstSeq,
      values: values ?? Array.from({ length: records }, (_, i) => `${name}.${i}`),
    };
    this.next = Math.max(this.next, firstSeq + batch.values.length);
    return batch;
  }

  /** Send once, pipelined; the outcomes go into the history. */
  async sendOnce(batches: readonly SentBatch[]): Promise<SendOutcome[]> {
    if (this.#connection === undefined || this.#connection.closed) {
      this.#connection?.close();
      this.#connection = await Connection.open(this.run.broker.port);
    }
    const outcomes = await this.#connection.sendAll(batches, this.run.broker, this.run.correlation);
    batches.forEach((batch, i) => {
      const outcome = outcomes[i]!;
      const attempt = this.run.sends.filter((s) => s.batch === batch).length + 1;
      this.run.sends.push({ batch, attempt, outcome });
      if (outcome.kind === 'error' && outcome.error !== 'OUT_OF_ORDER_SEQUENCE_NUMBER') {
        const why = this.run.broker.windowFailures.at(-1);
        throw new RunStopped(batch, `broker ตอบ ${outcome.error}${why === undefined ? '' : ` (${why})`}`);
      }
    });
    return outcomes;
  }

  /**
   * Send until each batch has an answer (a lost ack is resent as it was, as a Kafka producer retries);
   * a batch refused OUT_OF_ORDER_SEQUENCE_NUMBER is failed, and the application sends its values again
   * as a new batch at the next sequence. `merged` batches are not sent again: their parts are.
   */
  async send(batches: readonly SentBatch[]): Promise<void> {
    let pending = [...batches];
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > MAX_ATTEMPTS) throw new RunStopped(pending[0]!, `ส่ง ${MAX_ATTEMPTS} รอบแล้วยังไม่ได้คำตอบ`);
      const outcomes = await this.sendOnce(pending.slice(0, IN_FLIGHT));
      const rest = pending.slice(IN_FLIGHT);
      const again: SentBatch[] = [];
      outcomes.forEach((outcome, i) => {
        const batch = pending[i]!;
        if (outcome.kind === 'lost') again.push(batch);
        else if (outcome.kind === 'error') again.push(this.batch(batch.values.length, batch.values));
      });
      pending = [...again, ...rest];
    }
  }

  close(): void {
    this.#connection?.close();
  }
}

/** The run's shared state: the broker in use, the correlation ids, and the history of sends. */
interface Run {
  broker: Running;
  readonly correlation: { next: number };
  readonly sends: SendEvent[];
}

function segmentCount(dataDir: string): number {
  return readdirSync(join(dataDir, `${TOPIC}-0`)).filter((f) => f.endsWith('.log')).length;
}

function readAll(dataDir: string): { offset: number; value: string }[] {
  const p = Partition.open(dataDir, TOPIC, 0);
  try {
    const out: { offset: number; value: string }[] = [];
    let offset = p.logStartOffset;
    while (offset < p.logEndOffset) {
      const batches = p.log.readCheckedBatches(offset);
      if (batches.length === 0) break;
      for (const b of batches) {
        for (const r of b.records)
          out.push({ offset: b.baseOffset + r.offsetDelta, value: Buffer.from(r.value ?? []).toString() });
        offset = b.baseOffset + b.lastOffsetDelta + 1;
      }
    }
    return out;
  } finally {
    p.close();
  }
}

/** What the stage did, step by step, for the report's request line. */
export const BROKER_SCENARIO =
  'producer A ส่งห้า batch ค้างพร้อมกันแล้ว ack หายทั้งห้า ส่งซ้ำทั้งห้า; a5 กับ a6 ack หาย (มี batch ของ producer B คั่น) แล้วส่งซ้ำเป็นก้อนเดียวที่รวมสองก้อน; segment roll แล้ว broker restart ระหว่างที่ ack ของ a7 หาย; producer C เพิ่ม epoch แล้วเริ่ม sequence ที่ 0';

/**
 * Run the scenario with the learner's window in `file` over `dataDir`, and return the history. Lost acks:
 * the first broker drops the answers to its first eight writes and closes the connection on the ninth
 * (`klog serve --drop-acks 8 --close-after-append 1`); the second, after the restart, has no faults.
 */
export async function runBrokerScenario(
  file: string,
  dataDir: string,
  ids: { readonly a: number; readonly b: number; readonly c: number; readonly epoch: number },
): Promise<{ sends: readonly SendEvent[]; reads: { offset: number; value: string }[]; rolled: number }> {
  const first = await startBroker(dataDir, file, { dropAcks: 8, closeAfterAppend: 1 });
  const run: Run = { broker: first, correlation: { next: 1 }, sends: [] };
  const admin = await AdminClient.connect('127.0.0.1', first.port);
  try {
    const created = await admin.createTopic(TOPIC, 1);
    if (created?.errorCode !== 0) throw new Error(`CreateTopics ${TOPIC}: error ${created?.errorCode}`);
  } finally {
    admin.close();
  }
  const a = new Client('producer A', 'a', ids.a, ids.epoch, run);
  const b = new Client('producer B', 'b', ids.b, ids.epoch, run);
  const c = new Client('producer C', 'c', ids.c, ids.epoch, run);
  let rolled = 0;
  try {
    try {
      // Five in flight, every ack lost, then all five resent: the window must still hold the first.
      await a.send(Array.from({ length: 5 }, () => a.batch(2)));
      // a5 and a6 lost, with B's batch between them on the log; then one resend merged from the two.
      const a5 = a.batch(2);
      await a.sendOnce([a5]);
      await b.send([b.batch(2)]);
      const a6 = a.batch(2);
      await a.sendOnce([a6]);
      const merged: SentBatch = {
        ...a5,
        name: `${a5.name}+${a6.name}`,
        values: [...a5.values, ...a6.values],
      };
      const [answer] = await a.sendOnce([merged]);
      const acked = (batch: SentBatch) =>
        run.sends.some((s) => s.batch === batch && s.outcome.kind === 'ack');
      if (answer!.kind !== 'ack') await a.send([a5, a6].filter((x) => !acked(x)));
      // a7 written, its connection closed instead of answered; then the broker restarts on the same data.
      const a7 = a.batch(2);
      await a.sendOnce([a7]);
      rolled = segmentCount(dataDir);
      await stopBroker(first);
      run.broker = await startBroker(dataDir, file, { dropAcks: 0, closeAfterAppend: 0 });
      if (!acked(a7)) await a.send([a7]);
      // C writes two batches, bumps its epoch and starts at sequence 0 again, as Kafka's producer does.
      await c.send([c.batch(2), c.batch(2)]);
      c.epoch++;
      await c.send([c.batch(2, undefined, 0)]);
    } finally {
      for (const client of [a, b, c]) client.close();
      await stopBroker(run.broker);
    }
  } catch (error) {
    if (error instanceof RunStopped) throw stopped(error);
    throw error;
  }
  return { sends: run.sends, reads: readAll(dataDir), rolled };
}

function describe(batch: SentBatch): string {
  const last = batch.firstSeq + batch.values.length - 1;
  return `${batch.client}, batch ${batch.name} (pid ${batch.producerId}, epoch ${batch.epoch}, seq ${batch.firstSeq}..${last})`;
}

function stopped(error: RunStopped): StageFailed {
  return new StageFailed({
    request: describe(error.batch),
    summary: `broker หยุดกลางทาง: ${error.message}`,
    rows: [{ field: 'คำตอบ', expected: 'ตอบรับ หรือ OUT_OF_ORDER_SEQUENCE_NUMBER', actual: error.message }],
  });
}

/** The stage's failure for an anomaly: which client, which batch, which rule, with the batch's sends. */
export function anomalyFailure(anomaly: Anomaly, sends: readonly SendEvent[]): StageFailed {
  const tried = sends
    .filter((s) => s.batch === anomaly.batch)
    .map((s) =>
      s.outcome.kind === 'ack'
        ? `ตอบรับที่ offset ${s.outcome.baseOffset}`
        : s.outcome.kind === 'error'
          ? s.outcome.error
          : `ack หาย (${s.outcome.why})`,
    );
  return new StageFailed({
    request: `${describe(anomaly.batch)} · ส่ง ${tried.length} รอบ: ${tried.join(' → ')}`,
    summary: `${anomaly.name}: ${anomaly.rule}`,
    rows: [
      { field: 'anomaly', expected: 'ไม่มี', actual: anomaly.name },
      { field: 'ค่าใน log', expected: anomaly.expected, actual: anomaly.actual },
    ],
  });
}

export { checkHistory };
