import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { encodeRequest, FrameDecoder, IncrementalAlterConfigs } from '@klog/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { bin } from '../run-klog.js';

/**
 * Issue 40, 1(b): a fuzzer sending mutated admin and group requests wedged `klog serve` after about 72,900
 * frames (196,669 partition directories, no answer for over 100 s, SIGTERM handled after 113 s). Here a
 * seeded fuzzer sends such frames — encoded as KafkaJS 2.2.4 encodes them (IncrementalAlterConfigs, which
 * KafkaJS lacks, by klog's protocol package), then bytes flipped, integers replaced by edge values (counts,
 * lengths, partition numbers), frames cut or grown — over several connections, and an ApiVersions probe on a
 * connection of its own: each probe must be answered before the next `PROBE_EVERY` frames are sent, the
 * broker answers one at the end, and it exits 0 on SIGTERM.
 *
 * `KLOG_FUZZ_FRAMES` sets the number of frames (100,000, the run, by default); `KLOG_FUZZ_SEED` the
 * seed; `KLOG_FUZZ_NODE_ARGS` node's flags for the broker (`--cpu-prof --cpu-prof-dir=…`),
 * `KLOG_FUZZ_SERVE_ARGS` more `klog serve` flags.
 */
const FRAMES = Number(process.env.KLOG_FUZZ_FRAMES ?? 100_000);
const SEED = Number(process.env.KLOG_FUZZ_SEED ?? 40);
const PROBE_EVERY = 1000;
/** Connections the fuzz frames go over: a request a broker holds (a JoinGroup) blocks only its own. */
const SLOTS = 8;
/** A request unanswered while this many later frames were answered is given up: its connection closed. */
const GIVE_UP_AFTER = 2000;

const require = createRequire(import.meta.url);
const scratch = mkdtempSync(join(tmpdir(), 'klog-fuzz-'));
// Up to max.broker.partitions directories to remove.
afterAll(() => rmSync(scratch, { recursive: true, force: true }), 300_000);

/** Mulberry32: a small seeded PRNG, so that a failing run is repeated by its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type KafkaJsApi = {
  protocol(o: { version: number }): (args: unknown) => { request: unknown };
};
const kafkajsRequest = require('kafkajs/src/protocol/request.js') as (o: {
  correlationId: number;
  clientId: string;
  request: unknown;
}) => Promise<{ buffer: Buffer }>;

async function kafkajsFrame(api: string, version: number, args: unknown): Promise<Buffer> {
  const mod = require(`kafkajs/src/protocol/requests/${api}/index.js`) as KafkaJsApi;
  const { request } = mod.protocol({ version })(args);
  return (await kafkajsRequest({ correlationId: 1, clientId: 'fuzz', request })).buffer;
}

/** Valid requests of the nine APIs, over a few topics and groups: what the mutations start from. */
async function templates(): Promise<Buffer[]> {
  const out: Buffer[] = [];
  const topics = ['fz-a', 'fz-b', 'fz-c'];
  for (const topic of topics) {
    const configEntries = [{ name: 'retention.ms', value: '600000' }];
    out.push(
      await kafkajsFrame('createTopics', 2, {
        topics: [{ topic, numPartitions: 3, replicationFactor: 1, configEntries }],
        timeout: 5000,
        validateOnly: false,
      }),
      await kafkajsFrame('createPartitions', 1, {
        topicPartitions: [{ topic, count: 6 }],
        timeout: 5000,
        validateOnly: false,
      }),
      await kafkajsFrame('alterConfigs', 1, {
        resources: [{ type: 2, name: topic, configEntries: [{ name: 'cleanup.policy', value: 'delete' }] }],
        validateOnly: false,
      }),
      Buffer.from(
        encodeRequest(IncrementalAlterConfigs, 1, 1, 'fuzz', {
          resources: [
            {
              resourceType: 2,
              resourceName: topic,
              configs: [{ name: 'segment.bytes', configOperation: 0, value: '1048576' }],
            },
          ],
          validateOnly: false,
        }),
      ),
      await kafkajsFrame('deleteRecords', 1, {
        topics: [{ topic, partitions: [{ partition: 0, offset: '0' }] }],
        timeout: 5000,
      }),
      await kafkajsFrame('describeConfigs', 1, {
        resources: [{ type: 2, name: topic, configNames: ['retention.ms', 'cleanup.policy'] }],
        includeSynonyms: true,
      }),
    );
  }
  for (const groupId of ['fz-g1', 'fz-g2', 'fz-g3']) {
    const metadata = Buffer.from([0, 1, 0, 0, 0, 1, 0, 4, 0x66, 0x7a, 0x2d, 0x61, 0, 0, 0, 0]);
    out.push(
      await kafkajsFrame('joinGroup', 5, {
        groupId,
        sessionTimeout: 10_000,
        rebalanceTimeout: 10_000,
        memberId: '',
        groupInstanceId: null,
        protocolType: 'consumer',
        groupProtocols: [{ name: 'range', metadata }],
      }),
      await kafkajsFrame('syncGroup', 3, {
        groupId,
        generationId: 1,
        memberId: 'fuzz-member',
        groupInstanceId: null,
        groupAssignment: [{ memberId: 'fuzz-member', memberAssignment: metadata }],
      }),
      await kafkajsFrame('offsetCommit', 5, {
        groupId,
        groupGenerationId: -1,
        memberId: '',
        topics: [{ topic: 'fz-a', partitions: [{ partition: 0, offset: '5', metadata: 'm' }] }],
      }),
    );
  }
  return out;
}

/** Integers a field is set to: counts and lengths at and past their edges. */
const EDGES = [
  0, 1, -1, 2, 127, 128, 255, 256, 32_767, 32_768, 65_535, 65_540, 100_000, 0x7fffffff, -0x80000000,
];

/**
 * One frame from a template: the header's size, API key, version and correlation id kept (a size past the
 * bytes sent would have the broker wait for the rest, as Kafka would), the rest mutated 0–4 times.
 */
function mutate(template: Buffer, random: () => number, correlationId: number): Buffer {
  let body = Buffer.from(template.subarray(12));
  const pick = (n: number) => Math.floor(random() * n);
  const times = random() < 0.1 ? 0 : 1 + pick(4);
  for (let i = 0; i < times; i++) {
    const at = pick(Math.max(1, body.length));
    switch (pick(5)) {
      case 0:
        if (at < body.length) body[at] = body[at]! ^ (1 << pick(8));
        break;
      case 1:
        if (at + 4 <= body.length) body.writeInt32BE(EDGES[pick(EDGES.length)]! | 0, at);
        break;
      case 2:
        if (at + 2 <= body.length) body.writeInt16BE((EDGES[pick(EDGES.length)]! << 16) >> 16, at);
        break;
      case 3:
        body = body.subarray(0, at);
        break;
      default:
        body = Buffer.concat([body, Buffer.from(Array.from({ length: 1 + pick(16) }, () => pick(256)))]);
    }
  }
  const frame = Buffer.concat([template.subarray(0, 12), body]);
  frame.writeInt32BE(frame.length - 4, 0);
  frame.writeInt32BE(correlationId, 8);
  return frame;
}

/** A connection that sends one frame at a time and says whether it was answered or the connection closed. */
class Slot {
  readonly #socket: Socket;
  readonly #frames = new FrameDecoder(1 << 30);
  #waiting: ((answered: boolean) => void) | undefined;
  closed = false;
  /** The fuzz count when its outstanding frame was sent, or undefined when none is. */
  sentAt: number | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk) => {
      this.#frames.push(chunk);
      while (this.#frames.next() !== undefined) this.#settle(true);
    });
    socket.on('close', () => {
      this.closed = true;
      this.#settle(false);
    });
    socket.on('error', () => {});
  }

  static open(port: number): Promise<Slot> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new Slot(socket)));
      socket.once('error', reject);
    });
  }

  #settle(answered: boolean): void {
    const w = this.#waiting;
    this.#waiting = undefined;
    this.sentAt = undefined;
    w?.(answered);
  }

  send(frame: Buffer, count: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    this.sentAt = count;
    return new Promise((resolve) => {
      this.#waiting = resolve;
      this.#socket.write(frame);
    });
  }

  close(): void {
    this.#socket.destroy();
  }
}

/** ApiVersions v0 (header v1, no client id): any broker answers it. */
function apiVersionsFrame(correlationId: number): Buffer {
  const frame = Buffer.alloc(14);
  frame.writeInt32BE(10, 0);
  frame.writeInt16BE(18, 4);
  frame.writeInt16BE(0, 6);
  frame.writeInt32BE(correlationId, 8);
  frame.writeInt16BE(-1, 12);
  return frame;
}

interface Served {
  readonly child: ChildProcess;
  readonly port: number;
  readonly exit: Promise<number | null>;
  /** Why the broker closed connections (its `closed:` lines, numbers dropped), and how often. */
  readonly closes: Map<string, number>;
  /** Its ERROR lines. */
  readonly errors: string[];
}

function serve(dataDir: string): Promise<Served> {
  return new Promise((resolve, reject) => {
    const args = [
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--group-initial-rebalance-delay-ms',
      '0',
      ...(process.env.KLOG_FUZZ_SERVE_ARGS ?? '').split(' ').filter(Boolean),
    ];
    const child = spawn(
      process.execPath,
      [...(process.env.KLOG_FUZZ_NODE_ARGS ?? '').split(' ').filter(Boolean), bin, ...args],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exit = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    child.once('exit', (code) => reject(new Error(`klog serve exited ${code} before listening`)));
    const closes = new Map<string, number>();
    const errors: string[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const closed = /: closed: (.*)$/.exec(line);
      if (closed !== null) {
        const reason = closed[1]!.replace(/\d+/g, 'N').slice(0, 160);
        closes.set(reason, (closes.get(reason) ?? 0) + 1);
      }
      if (/\bERROR\b/.test(line)) errors.push(line);
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(line);
      if (m !== null) resolve({ child, port: Number(m[1]), exit, closes, errors });
    });
  });
}

describe('klog serve under a seeded fuzz of the admin and group APIs', () => {
  it(`${FRAMES} mutated frames (seed ${SEED}): a probe answered every ${PROBE_EVERY} frames, at the end, and SIGTERM`, async () => {
    const random = prng(SEED);
    const pool = await templates();
    const served = await serve(join(scratch, 'data'));
    const probe = await Slot.open(served.port);
    let sent = 0;
    let answered = 0;
    let closedByBroker = 0;
    let givenUp = 0;
    let probes = 0;
    try {
      const slots = await Promise.all(Array.from({ length: SLOTS }, () => Slot.open(served.port)));
      // While a probe is out no fuzz frame is sent: each is answered before the next PROBE_EVERY are.
      let gate: Promise<void> = Promise.resolve();
      const run = async (i: number): Promise<void> => {
        while (sent < FRAMES) {
          if (slots[i]!.closed) slots[i] = await Slot.open(served.port);
          if (probes < Math.floor(sent / PROBE_EVERY)) {
            probes++;
            const at = sent;
            if (at % 10_000 === 0) console.log(`fuzz: ${at} frames sent, ${answered} answered`);
            gate = probe.send(apiVersionsFrame(at), at).then((ok) => {
              if (!ok)
                throw new Error(`the probe after ${at} frames was not answered: its connection closed`);
            });
          }
          await gate;
          if (sent >= FRAMES) break;
          const slot = slots[i]!;
          for (const [j, other] of slots.entries()) {
            if (j !== i && other.sentAt !== undefined && answered - other.sentAt > GIVE_UP_AFTER) {
              givenUp++;
              other.close();
            }
          }
          const frame = mutate(pool[Math.floor(random() * pool.length)]!, random, sent);
          sent++;
          if (await slot.send(frame, answered)) answered++;
          else closedByBroker++;
        }
      };
      await Promise.all(slots.map((_, i) => run(i)));
      for (const s of slots) s.close();
      expect(await probe.send(apiVersionsFrame(FRAMES), FRAMES)).toBe(true);
      const dirs = readdirSync(join(scratch, 'data')).filter((d) => /-\d+$/.test(d)).length;
      console.log(
        `fuzz: ${sent} frames, ${answered} answered, ${closedByBroker} closed the connection, ` +
          `${givenUp} given up, ${probes} probes answered, ${dirs} partition directories`,
      );
      // Eight senders share the count: the last PROBE_EVERY frames may or may not see one more probe out.
      expect(probes).toBeGreaterThanOrEqual(Math.floor((FRAMES - 1) / PROBE_EVERY));
      expect(probes).toBeLessThanOrEqual(Math.ceil(FRAMES / PROBE_EVERY));
      // max.broker.partitions' default held: the issue's run grew to 196,669 (266,477 here without it).
      if (process.env.KLOG_FUZZ_SERVE_ARGS === undefined) expect(dirs).toBeLessThanOrEqual(120_000);
      const reasons = [...served.closes].sort((a, b) => b[1] - a[1]);
      console.log(reasons.map(([r, n]) => `${n} × ${r}`).join('\n'));
      // Kafka closes a connection only for a frame it cannot parse: a request it can read is answered, with
      // an error code if need be — never an internal error.
      expect(served.errors).toEqual([]);
      expect(reasons.filter(([r]) => !r.startsWith('a request klog cannot read'))).toEqual([]);
    } finally {
      probe.close();
      served.child.kill('SIGTERM');
      expect(await served.exit).toBe(0);
    }
  }, 900_000);
});
