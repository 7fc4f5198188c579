import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { errorName } from '@klog/protocol';
import { check } from '../check.js';
import { InvariantBroken } from '../errors.js';
import { padEnd, padStart } from '../format.js';
import type { Style } from '../style.js';
import { AdminClient } from '../topics/admin-client.js';
import {
  type Found,
  isGuarded,
  type KafkaClient,
  keysOf,
  type Produced,
  type ProduceRun,
} from './clients/client.js';
import { type AckLossOptions, isExact } from './options.js';
import type { Children } from './processes.js';
import { type LogRecord, readPartition } from './read-back.js';
import { serveWithFaults } from './served-broker.js';
import { earlierCopies, type FaultedWrite, faultedOffsets, parseFault, type Tally, tally } from './tally.js';

export const TOPIC = 'ack-loss';
const PARTITION = 0;
const PREFIX = 'm';
/** Only a hang gets this far: a client or broker that has not finished is killed and the demo fails. */
const HANG_MS = 300_000;
/** librdkafka refuses this many in flight with idempotence on: one past the broker's window of five. */
const GUARD_IN_FLIGHT = 6;

type Out = (line: string) => void;

/** Where the demo prints, and where it may say how far it has got (stderr, only on a terminal). */
export interface DemoIo {
  readonly out: Out;
  readonly progress: (line: string) => void;
  readonly style: Style;
  readonly children: Children;
  /** A fresh empty directory, removed by the caller on every way out. */
  readonly scratch: string;
}

/** One client's run with idempotence off or on: what it was told, what the log holds, what the broker did. */
interface RunResult {
  readonly idempotence: boolean;
  readonly tally: Tally;
  readonly faults: readonly FaultedWrite[];
  readonly records: readonly LogRecord[];
  /** Sends the application made again itself (the library reported a failure it did not retry). */
  readonly resentByApplication: number;
}

const modeName = (idempotence: boolean) => (idempotence ? 'on' : 'off');

function section(io: DemoIo, title: string): void {
  io.out(io.style.bold(`== ${title} ==`));
}

function countWord(n: number): string {
  return n === 1 ? 'ครั้งที่ 1' : `ครั้งที่ 1..${n}`;
}

function setup(io: DemoIo, o: AckLossOptions): void {
  section(
    io,
    `ack หายจริงบน socket: klog serve --drop-acks ${o.dropAcks} --close-after-append ${o.closeAfterAppend}`,
  );
  io.out('ทุกรอบได้ broker ตัวใหม่: process ของ klog serve บน 127.0.0.1 ที่ port ซึ่งระบบเลือกให้ กับ directory ว่าง');
  io.out('broker เขียน batch ลง log ให้เสร็จก่อน แล้วจึงทำ ack หายตามคำสั่ง โดยนับเฉพาะ produce ที่เขียนอะไรลงไปจริง');
  if (o.dropAcks > 0) {
    io.out(
      `  ${padEnd(countWord(o.dropAcks), 14)}ไม่ตอบ ปล่อยสายค้าง: client รอจนพ้น ${o.requestTimeoutMs} ms แล้วส่งก้อนเดิมอีกครั้ง`,
    );
  }
  if (o.closeAfterAppend > 0) {
    const from = o.dropAcks + 1;
    const to = o.dropAcks + o.closeAfterAppend;
    io.out(
      `  ${padEnd(from === to ? `ครั้งที่ ${from}` : `ครั้งที่ ${from}..${to}`, 14)}ตัดสายทิ้งแทนคำตอบ: client ต่อสายใหม่แล้วส่งก้อนเดิมอีกครั้ง`,
    );
  }
  io.out('ก้อนที่ส่งซ้ำแล้ว broker ตัดสินว่าซ้ำไม่ได้เขียนอะไร จึงไม่นับ และได้คำตอบตามปกติ');
  const shape = isExact(o)
    ? `ทีละหนึ่ง request หนึ่งข้อความ รอคำตอบก่อนส่งข้อความถัดไป`
    : `request ละไม่เกิน ${o.batch} ข้อความ ค้างบนสายได้ถึง ${o.inFlight} request`;
  io.out(`client แต่ละตัวส่ง ${o.messages} ข้อความเข้า ${TOPIC}-${PARTITION} ${shape}`);
  io.out('สองรอบใช้ค่าตั้งชุดเดียวกันทุกค่า ต่างกันที่ปิดหรือเปิด idempotence เท่านั้น');
  io.out('จบรอบแล้วปิด broker แล้วอ่าน partition ย้อนจาก segment file เพื่อนับของที่อยู่บน log จริง');
  io.out('');
}

async function createTopic(port: number): Promise<void> {
  const admin = await AdminClient.connect('127.0.0.1', port);
  try {
    const code = (await admin.createTopic(TOPIC, 1))?.errorCode;
    if (code !== 0)
      throw new Error(
        `klog serve could not create ${TOPIC}: ${code === undefined ? 'no answer' : errorName(code)}`,
      );
  } finally {
    admin.close();
  }
}

/** One run: a fresh broker with the faults, the client's messages, the broker stopped, the log read back. */
async function runOnce(
  io: DemoIo,
  o: AckLossOptions,
  client: KafkaClient,
  id: string,
  idempotence: boolean,
): Promise<RunResult> {
  const dataDir = join(io.scratch, `${id}-${modeName(idempotence)}`);
  mkdirSync(dataDir);
  io.progress(`${client.name}: idempotence ${modeName(idempotence)}`);
  const broker = await serveWithFaults(io.children, dataDir, o, HANG_MS);
  const run: ProduceRun = {
    port: broker.port,
    topic: TOPIC,
    prefix: PREFIX,
    count: o.messages,
    idempotence,
    inFlight: o.inFlight,
    batch: o.batch,
    requestTimeoutMs: o.requestTimeoutMs,
    scratch: dataDir,
    hangMs: HANG_MS,
  };
  let produced: Produced;
  try {
    await createTopic(broker.port);
    produced = await client.produce(io.children, run);
  } finally {
    await broker.stop();
  }
  const records = readPartition(dataDir, TOPIC, PARTITION);
  return {
    idempotence,
    tally: tally(keysOf(run), produced.told, records, isExact(o)),
    faults: broker.faults.map(parseFault),
    records,
    resentByApplication: produced.resentByApplication,
  };
}

/** The idempotent run's claims as a learner behind `--window` reads them. */
const CLAIM_WORDS: Readonly<Record<string, string>> = {
  'the broker lost as many acks as asked': 'broker ทำ ack หายครบตามที่สั่ง',
  [`every fault was on ${TOPIC}-${PARTITION}`]: `ack ที่หายทุกตัวเป็นของ ${TOPIC}-${PARTITION}`,
  'the application was told every message was written': 'application ได้ยินว่าทุกข้อความถูกเขียนแล้ว',
  'nothing on the log but the messages sent': 'ใน log มีแต่ข้อความที่ส่งไป',
  'no message is missing from the log': 'ไม่มีข้อความไหนหายไปจาก log',
  'every offset the application was told holds its message': 'ทุก offset ที่ application ได้ยินมีข้อความของมันอยู่จริง',
  'records on the log = messages + duplicates': 'จำนวน record ใน log = ข้อความ + ของซ้ำ',
  'the application sent again once per dropped response, or never':
    'application ส่งเองอีกรอบครั้งเดียวต่อคำตอบที่ถูกทิ้ง หรือไม่ส่งเลย',
  'no duplicate': 'ไม่มีของซ้ำ',
  'each message whose ack was lost was told the offset it was first written at':
    'ข้อความที่ ack หายได้ยิน offset ที่มันถูกเขียนครั้งแรก',
  'one producer id and epoch wrote every batch': 'ทุก batch มาจาก producer id กับ epoch เดียว',
  'the producer id is a real one': 'producer id เป็นเลขจริงที่ broker แจก',
  "the records' sequence numbers are 0, 1, 2, … in log order":
    'sequence ของ record เรียง 0, 1, 2, … ตามลำดับใน log',
};

/**
 * The claims of a run, checked before they are printed: both runs — every lost ack happened, every message
 * acked and on the log, every offset told holds its message; idempotence on — no duplicate, each faulted
 * write answered (to its retry) with the offset it was first written at, one producer whose sequences follow
 * on; idempotence off — every record a faulted write left was written again, and in the exact run the
 * duplicates are exactly those records.
 */
function checkRun(o: AckLossOptions, client: KafkaClient, r: RunResult): string[] {
  const t = r.tally;
  // Behind a learner's window (--window), what the idempotent run shows is their window's doing, not a bug of
  // the demo's: each claim that does not hold is kept for the report at the end instead of ending the run.
  const broken: string[] = [];
  const claim = (what: string, expected: unknown, actual: unknown) => {
    if (o.window === undefined || !r.idempotence) return check(what, expected, actual);
    if (!isDeepStrictEqual(expected, actual)) {
      // The learner's report is Thai, as the lab's: the claim in its words, without the client (the report's
      // heading names it) and the mode (only the idempotent run is kept).
      const rule = what.slice(what.indexOf(': ') + 2);
      broken.push(
        `${CLAIM_WORDS[rule] ?? rule}: ควรเป็น ${JSON.stringify(expected)} ได้จริง ${JSON.stringify(actual)}`,
      );
    }
  };
  const what = `${client.name}, idempotence ${modeName(r.idempotence)}`;
  claim(`${what}: the broker lost as many acks as asked`, o.dropAcks + o.closeAfterAppend, r.faults.length);
  claim(
    `${what}: every fault was on ${TOPIC}-${PARTITION}`,
    true,
    r.faults.every((f) => f.ranges.every((x) => x.topic === TOPIC && x.partition === PARTITION)),
  );
  claim(
    `${what}: the application was told every message was written`,
    { acked: t.sent, failed: 0 },
    { acked: t.acked, failed: t.failed, ...(t.firstError === undefined ? {} : { firstError: t.firstError }) },
  );
  claim(`${what}: nothing on the log but the messages sent`, 0, t.strangers);
  claim(`${what}: no message is missing from the log`, 0, t.missing);
  claim(`${what}: every offset the application was told holds its message`, t.sent, t.toldRight);
  claim(`${what}: records on the log = messages + duplicates`, t.sent + t.duplicates, t.onLog);
  if (isExact(o)) {
    // A library that does not retry a timed-out request leaves each dropped response to the application.
    claim(
      `${what}: the application sent again once per dropped response, or never`,
      client.resendNote === undefined ? 0 : o.dropAcks,
      r.resentByApplication,
    );
  }
  const faulted = faultedOffsets(r.faults, TOPIC, PARTITION);
  const keyAt = new Map(r.records.map((x) => [x.offset, x.key!]));
  if (r.idempotence) {
    claim(`${what}: no duplicate`, 0, t.duplicates);
    claim(
      `${what}: each message whose ack was lost was told the offset it was first written at`,
      faulted,
      faulted.filter((offset) => t.told.get(keyAt.get(offset)!) === offset),
    );
    const producers = new Set(r.records.map((x) => `${x.producerId}/${x.producerEpoch}`));
    claim(`${what}: one producer id and epoch wrote every batch`, 1, producers.size);
    claim(
      `${what}: the producer id is a real one`,
      true,
      r.records.every((x) => x.producerId >= 0),
    );
    claim(
      `${what}: the records' sequence numbers are 0, 1, 2, … in log order`,
      true,
      r.records.every((x, i) => x.sequence === i),
    );
  } else {
    claim(
      `${what}: no batch carries a producer id`,
      true,
      r.records.every((x) => x.producerId === -1),
    );
    claim(
      `${what}: every record a faulted write left was written again`,
      faulted,
      faulted.filter((offset) => (t.copies.get(keyAt.get(offset)!)?.length ?? 0) > 1),
    );
    if (isExact(o)) {
      claim(`${what}: one duplicate per lost ack`, r.faults.length, t.duplicates);
      claim(
        `${what}: the duplicates are exactly the records the faulted writes left`,
        faulted,
        earlierCopies(t),
      );
    }
  }
  return broken;
}

function tableHeader(io: DemoIo): void {
  io.out(
    `  ${padEnd('idempotence', 12)}${padStart('ส่ง', 6)}${padStart('ack', 6)}${padStart('บน log', 8)}${padStart('ซ้ำ', 6)}${padStart('หาย', 6)}  offset ที่ได้ยินชี้ข้อความนั้น`,
  );
}

function tableRow(io: DemoIo, r: RunResult): void {
  const t = r.tally;
  const cells = [t.sent, t.acked, t.onLog, t.duplicates, t.missing];
  const widths = [6, 6, 8, 6, 6];
  io.out(
    `  ${padEnd(modeName(r.idempotence), 12)}${cells.map((c, i) => padStart(String(c), widths[i]!)).join('')}  ${t.toldRight}/${t.acked}`,
  );
}

/** At most this many messages are named one by one; more are summed up in a line. */
const NAMED = 4;

/** What the run shows about the messages whose ack was lost, in a line or a few. */
function story(io: DemoIo, r: RunResult, holds = true): void {
  const pad = '       ';
  for (const [i, f] of r.faults.entries())
    io.out(`${i === 0 ? `  ${padEnd(modeName(r.idempotence), 5)}` : pad}${f.line}`);
  const t = r.tally;
  const keyAt = new Map(r.records.map((x) => [x.offset, x.key!]));
  const faultedKeys = [...new Set(faultedOffsets(r.faults, TOPIC, PARTITION).map((o) => keyAt.get(o)!))];
  if (r.idempotence && !holds) {
    // Behind a learner's window that broke a claim: the report at the end says what, not these lines.
    io.out(`${pad}หน้าต่างของคุณทำให้ผลรอบนี้ต่างจากของ klog: ดูรายละเอียดในหัวข้อท้ายผลรัน`);
  } else if (r.idempotence) {
    if (faultedKeys.length > 0 && faultedKeys.length <= NAMED) {
      const told = faultedKeys.map((k) => `${k} ได้ยิน offset ${t.told.get(k)}`).join(' · ');
      io.out(`${pad}${told} ตรงกับที่ broker เขียนไว้ครั้งแรก การส่งซ้ำไม่เพิ่มอะไรลง log`);
    } else if (faultedKeys.length > NAMED) {
      io.out(
        `${pad}ข้อความ ${faultedKeys.length} ข้อความที่ ack หายได้ยิน offset ที่ broker เขียนไว้ครั้งแรกทุกข้อความ การส่งซ้ำไม่เพิ่มอะไรลง log`,
      );
    }
    io.out(
      `${pad}ทุก batch มี producer id กับ epoch เดียวกัน และ sequence 0..${r.records.length - 1} เรียงต่อกันไม่ขาดตาม offset`,
    );
  } else {
    if (faultedKeys.length <= NAMED) {
      for (const k of faultedKeys) {
        const copies = t.copies.get(k)!;
        io.out(
          `${pad}${k} อยู่บน log ${copies.length} ที่: offset ${copies.join(' ')} · application ได้ยินแค่ ${t.told.get(k)}`,
        );
      }
    } else {
      io.out(
        `${pad}ข้อความ ${faultedKeys.length} ข้อความที่ ack หายมีสำเนาบน log มากกว่าหนึ่งชุดทุกข้อความ application ได้ยินแค่ offset เดียวต่อข้อความ`,
      );
    }
    io.out(`${pad}batch ไม่มีเจ้าของ (producer id -1) broker จึงแยกไม่ออกว่าก้อนไหนคือการส่งซ้ำ`);
  }
}

interface ClientResult {
  readonly title: string;
  readonly off: RunResult;
  readonly on: RunResult;
  /** Behind a learner's window: the idempotent run's claims that did not hold. */
  readonly broken: readonly string[];
}

async function demoClient(
  io: DemoIo,
  o: AckLossOptions,
  client: KafkaClient,
  title: string,
): Promise<ClientResult> {
  const id = client.name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-/, '');
  const off = await runOnce(io, o, client, id, false);
  checkRun(o, client, off);
  const on = await runOnce(io, o, client, id, true);
  const broken = checkRun(o, client, on);
  section(io, title);
  for (const r of [off, on]) {
    const note = client.inFlightNote({ idempotence: r.idempotence, inFlight: o.inFlight });
    if (note !== undefined) io.out(`  (${modeName(r.idempotence)}: ${note})`);
  }
  if (off.resentByApplication + on.resentByApplication > 0) {
    io.out(
      `  (${client.resendNote}: รอบ off ${off.resentByApplication} ครั้ง รอบ on ${on.resentByApplication} ครั้ง)`,
    );
  }
  tableHeader(io);
  tableRow(io, off);
  tableRow(io, on);
  story(io, off);
  story(io, on, broken.length === 0);
  io.out('');
  return { title, off, on, broken };
}

async function guard(io: DemoIo, found: readonly KafkaClient[]): Promise<void> {
  const guarded = found.filter(isGuarded);
  section(io, `idempotence กับ in-flight ${GUARD_IN_FLIGHT}: librdkafka ไม่ยอมสร้าง producer`);
  if (guarded.length === 0) {
    io.out('ข้าม: รอบนี้ไม่ได้รัน client ที่ใช้ librdkafka (kcat, confluent-kafka)');
    io.out('');
    return;
  }
  for (const client of guarded) {
    const { command, refusal } = await client.guard(io.children, GUARD_IN_FLIGHT, HANG_MS);
    check(
      `${client.name} refuses idempotence with ${GUARD_IN_FLIGHT} in flight`,
      true,
      refusal !== undefined,
    );
    check(
      `${client.name}'s refusal names the setting and the limit of 5`,
      true,
      /max\.in\.flight/.test(refusal!) && /<= 5/.test(refusal!) && /enable\.idempotence/.test(refusal!),
    );
    io.out(`  ${command}`);
    io.out(`    → ${refusal}`);
  }
  io.out('ข้อความข้างบนมาจากตัว librdkafka เอง client ตรวจเพดานนี้ตั้งแต่ตอนสร้าง ก่อนจะต่อ broker ใด ๆ');
  io.out('broker จำไว้แค่ 5 batch ล่าสุดต่อ producer ต่อ partition ถ้าปล่อยให้ค้างบนสายได้ 6');
  io.out('ก้อนแรกอาจถูกเบียดออกจากความจำของ broker ก่อนที่ producer จะรู้ว่ามันต้องส่งก้อนนั้นซ้ำ');
  io.out('');
}

function summary(io: DemoIo, o: AckLossOptions, results: readonly ClientResult[]): void {
  section(io, 'สรุป: ack ที่หายกลายเป็นอะไรบน log');
  const width = Math.max(6, ...results.map((r) => r.title.length)) + 2;
  io.out(
    `  ${padEnd('client', width)}${padStart('ack หาย', 9)}${padStart('off: ซ้ำ', 10)}${padStart('on: ซ้ำ', 9)}${padStart('on: หาย', 9)}`,
  );
  for (const r of results) {
    const cells = [r.on.faults.length, r.off.tally.duplicates, r.on.tally.duplicates, r.on.tally.missing];
    const widths = [9, 10, 9, 9];
    io.out(`  ${padEnd(r.title, width)}${cells.map((c, i) => padStart(String(c), widths[i]!)).join('')}`);
  }
  if (isExact(o)) {
    io.out('ปิด idempotence: ack ที่หายหนึ่งครั้งคือสำเนาเกินหนึ่งชุดบน log และ application ไม่เคยได้ยินเรื่องสำเนานั้น');
  } else {
    io.out('ปิด idempotence: ทุก record ที่ถูกเขียนไปแล้วแต่ ack หายถูกเขียนซ้ำอีกรอบ application ไม่ได้ยินเรื่องนี้');
  }
  io.out('เปิด idempotence: client ตัวเดิมส่งซ้ำแบบเดิมทุกอย่าง แต่ batch ถือ producer id กับ sequence มาด้วย');
  io.out('broker จึงจับได้ว่าเคยเขียนแล้ว ตอบด้วย offset เดิมโดยไม่เขียนเพิ่ม ไม่ซ้ำและไม่หายสักข้อความ');
  io.out('ทั้งหมดนี้ใช้แค่ข้อมูลเล็ก ๆ ห้าก้อนต่อ producer ต่อ partition ที่ broker เก็บไว้');
}

/**
 * `klog ack-loss-demo`: the chapter's lost ack through real Kafka clients on a real socket. Every count it
 * prints is checked first (check.ts: a wrong one ends the run with exit code 1).
 */
export async function runAckLossDemo(io: DemoIo, o: AckLossOptions): Promise<void> {
  // Every client is looked for first: under CI a missing one fails the run before anything is sent.
  const looked: { client: KafkaClient; found: Found }[] = [];
  for (const client of o.clients) looked.push({ client, found: await client.find(io.children) });
  const missing = looked.flatMap(({ client, found }) =>
    found.found ? [] : [`${client.name} (${found.why})`],
  );
  if (o.requireAll && missing.length > 0) {
    throw new Error(
      `CI is set, so every client must run, and ${missing.length === 1 ? 'one is' : `${missing.length} are`} missing: ${missing.join('; ')}`,
    );
  }
  setup(io, o);
  const results: ClientResult[] = [];
  for (const { client, found } of looked) {
    if (!found.found) {
      section(io, client.name);
      io.out(`ข้าม: ไม่พบ ${client.name} บนเครื่องนี้ · ติดตั้งด้วย ${found.install}`);
      io.out('');
      continue;
    }
    results.push(await demoClient(io, o, client, found.version));
  }
  await guard(
    io,
    looked.filter((l) => l.found.found).map((l) => l.client),
  );
  summary(io, o, results);
  if (o.window !== undefined) windowReport(io, o.window, results);
}

/**
 * Behind a learner's window, with every claim holding, the run reads as klog's own (nothing more is
 * printed); otherwise a last section lists, client by client, what their window let through, and the run
 * ends with exit code 1.
 */
function windowReport(io: DemoIo, window: string, results: readonly ClientResult[]): void {
  const broken = results.filter((r) => r.broken.length > 0);
  if (broken.length === 0) return;
  section(io, `หน้าต่างของคุณกับ client จริง: ${window}`);
  for (const r of broken) {
    io.out(
      `  ${r.title}: ซ้ำบน log ${r.on.tally.duplicates} · หาย ${r.on.tally.missing} · offset ที่ได้ยินถูก ${r.on.tally.toldRight}/${r.on.tally.acked}`,
    );
    for (const line of r.broken) io.out(`    ${line}`);
  }
  io.out('');
  const dups = broken.reduce((n, r) => n + r.on.tally.duplicates, 0);
  throw new InvariantBroken(
    `ack-loss-demo --window ${window}: เมื่อเปิด idempotence หน้าต่างของคุณทำให้ข้อที่ต้องเป็นจริงพังไป ${broken.reduce((n, r) => n + r.broken.length, 0)} ข้อ ใน client ${broken.length} ตัว และปล่อยของซ้ำลง log ${dups} record (รายการอยู่ข้างบน)`,
  );
}
