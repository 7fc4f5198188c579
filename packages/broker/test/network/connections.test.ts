import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUIET_MS } from '../../src/network/connection.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import {
  createTopicsRaw,
  kafkajs,
  produceOneRaw,
  RawClient,
  rawFrame,
  waitingFetchRaw,
} from '../support/raw-client.js';

let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({ socketRequestMaxBytes: 65536, maxBufferedResponseBytes: 16 * 1024 });
  await createTopicsRaw(
    b.port,
    Array.from({ length: 300 }, (_, i) => ({ name: `topic-with-a-long-name-${String(i).padStart(4, '0')}` })),
  );
});
afterAll(() => b.stop());

async function apiVersionsWorks(correlationId = 900): Promise<void> {
  const c = await RawClient.connect(b.port);
  const req = await kafkajs('apiVersions', 2, {}, correlationId);
  c.send(req.frame);
  expect((await req.decode(await c.next())).correlation).toBe(correlationId);
  c.close();
}

async function closedFor(bytes: Uint8Array): Promise<void> {
  const c = await RawClient.connect(b.port);
  c.send(bytes);
  await c.closed;
}

function lastLine(): string {
  return b.lines.filter((l) => l.includes('closed:')).at(-1) ?? '';
}

describe('one connection’s bad input closes that connection only', () => {
  it('a frame over socket.request.max.bytes: closed as soon as its size is read, nothing of it buffered', async () => {
    const c = await RawClient.connect(b.port);
    c.send(new Uint8Array([0, 1, 0, 0x01])); // 65537 bytes announced, none sent
    await c.closed;
    expect(lastLine()).toMatch(
      /closed: refused a frame: frame of 65537 bytes is over socket.request.max.bytes \(65536\)$/,
    );
    await apiVersionsWorks();
  });

  it('a negative frame size', async () => {
    await closedFor(new Uint8Array([0xff, 0xff, 0xff, 0xfe]));
    expect(lastLine()).toMatch(/frame size -2 is negative/);
    await apiVersionsWorks();
  });

  it('a frame too short for a header, and garbage that is not a request', async () => {
    await closedFor(new Uint8Array([0, 0, 0, 3, 0, 3, 0]));
    expect(lastLine()).toMatch(/a request klog cannot read/);
    await closedFor(new Uint8Array([0, 0, 0, 12, 0, 3, 0, 1, 0, 0, 0, 9, 0x7f, 0x7f, 1, 2]));
    expect(lastLine()).toMatch(
      /a request klog cannot read \(header.clientId at byte 10: a string of 32639 bytes needs 32639 bytes, only 2 left\)/,
    );
    await apiVersionsWorks();
  });

  it('a body that does not parse (an array count its bytes cannot hold)', async () => {
    await closedFor(rawFrame(3, 1, 1, new Uint8Array([0, 0, 0x10, 0])));
    expect(lastLine()).toMatch(/topics at byte \d+: 4096 elements of at least 2 bytes cannot fit/);
    await apiVersionsWorks();
  });

  it('an API klog does not serve: closed as Kafka does, said at WARN once per client and API', async () => {
    const lines = () => b.lines.filter((l) => l.includes('AddPartitionsToTxn'));
    await closedFor(rawFrame(24, 3, 1, new Uint8Array([0, 1, 0x67, 0])));
    expect(lines().at(-1)).toMatch(
      /^warn: .*closed: AddPartitionsToTxn \(API key 24\) v3 from client "raw-test" is not served by klog \(see ApiVersions for what is\): klog has no definition of API key 24, so the connection is closed as Kafka closes it$/,
    );
    // The same client again, in another version: the same pair, so DEBUG only.
    await closedFor(rawFrame(24, 2, 2));
    expect(lines()).toHaveLength(2);
    expect(lines().at(-1)).toMatch(/^debug: .*AddPartitionsToTxn \(API key 24\) v2 from client "raw-test"/);
    // Another client: WARN again.
    await closedFor(rawFrame(24, 3, 3, new Uint8Array(0), false, 'sarama'));
    expect(lines().at(-1)).toMatch(
      /^warn: .*AddPartitionsToTxn \(API key 24\) v3 from client "sarama" is not served/,
    );
    await closedFor(rawFrame(999, 0, 1));
    expect(lastLine()).toMatch(
      /^warn: .*unknown API key 999 \(API key 999\) v0 from client "raw-test" is not served by klog/,
    );
    await apiVersionsWorks();
  });

  it('a version not served that klog has codecs for (Produce v0–v2, advertised as Kafka 4 does; Fetch v0–v3): answered UNSUPPORTED_VERSION, the connection kept', async () => {
    const c = await RawClient.connect(b.port);
    const topic = 'topic-with-a-long-name-0001';
    // KafkaJS 2.2.4's own encoders and decoders of these old versions: what the client reports.
    const produce = await kafkajs(
      'produce',
      2,
      {
        acks: 1,
        timeout: 1000,
        compression: 0,
        topicData: [
          { topic, partitions: [{ partition: 0, messages: [{ key: 'k', value: 'v' }] }] },
          { topic: 'no-such-topic', partitions: [{ partition: 3, messages: [{ value: 'w' }] }] },
        ],
      },
      21,
    );
    c.send(produce.frame);
    const produced = await produce.decode(await c.next());
    expect(produced.correlation).toBe(21);
    expect(produced.data).toMatchObject({
      topics: [
        { topicName: topic, partitions: [{ partition: 0, errorCode: 35 }] },
        { topicName: 'no-such-topic', partitions: [{ partition: 3, errorCode: 35 }] },
      ],
    });
    await expect(produced.parse()).rejects.toMatchObject({ type: 'UNSUPPORTED_VERSION', retriable: false });
    expect(b.lines.filter((l) => l.includes('Produce v2')).at(-1)).toMatch(
      /^warn: conn .* #\d+: Produce v2 from client "raw-test" is not served by klog \(it serves v3–v8\): answered UNSUPPORTED_VERSION$/,
    );
    for (const version of [0, 3]) {
      const fetch = await kafkajs(
        'fetch',
        version,
        {
          replicaId: -1,
          maxWaitTime: 100,
          minBytes: 1,
          maxBytes: 1024,
          topics: [{ topic, partitions: [{ partition: 0, fetchOffset: '0', maxBytes: 1024 }] }],
        },
        30 + version,
      );
      c.send(fetch.frame);
      const fetched = await fetch.decode(await c.next());
      expect(fetched.correlation).toBe(30 + version);
      expect(fetched.data).toMatchObject({
        responses: [{ topicName: topic, partitions: [{ partition: 0, errorCode: 35 }] }],
      });
      await expect(fetched.parse()).rejects.toMatchObject({ type: 'UNSUPPORTED_VERSION' });
    }
    // Once per client and API at WARN: Fetch v3 after Fetch v0 from the same client is DEBUG.
    expect(b.lines.filter((l) => l.includes('Fetch v0 from')).at(-1)).toMatch(
      /^warn: .*answered UNSUPPORTED_VERSION$/,
    );
    expect(b.lines.filter((l) => l.includes('Fetch v3 from')).at(-1)).toMatch(
      /^debug: .*Fetch v3 from client "raw-test" is not served by klog \(it serves v4–v18\): answered UNSUPPORTED_VERSION$/,
    );
    // Still the same connection, answering what it serves.
    const versions = await kafkajs('apiVersions', 2, {}, 40);
    c.send(versions.frame);
    expect((await versions.decode(await c.next())).correlation).toBe(40);
    expect(c.isClosed).toBe(false);
    c.close();
    await apiVersionsWorks();
  });

  it('Produce v0–v2 with acks = 0 expects no answer: closed, the only signal Kafka has for a failed acks=0 produce', async () => {
    await closedFor(rawFrame(0, 1, 1, new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), false, 'acks0'));
    expect(lastLine()).toMatch(
      /^warn: .*closed: Produce v1 from client "acks0" is not served by klog \(it serves v3–v8\): the request expects no response, so the connection is closed as Kafka closes it$/,
    );
    await apiVersionsWorks();
  });

  it('a version past klog’s codecs: closed, as Kafka does, and the WARN line says why', async () => {
    await closedFor(rawFrame(1, 19, 1, new Uint8Array(0), true, 'newer'));
    expect(lastLine()).toMatch(
      /^warn: .*Fetch v19 from client "newer" is not served by klog \(it serves v4–v18\): klog has no codec for v19 \(its codecs: v0–v18\), so the connection is closed as Kafka closes it$/,
    );
    await closedFor(rawFrame(1, 20, 2, new Uint8Array(0), true, 'newer'));
    expect(lastLine()).toMatch(/^debug: .*Fetch v20 from client "newer" is not served by klog/);
    await closedFor(rawFrame(0, 9, 1, new Uint8Array(0), true, 'newer'));
    expect(lastLine()).toMatch(
      /^warn: .*Produce v9 from client "newer" is not served by klog \(it serves v3–v8\): klog has no codec for v9/,
    );
    // An old version whose body does not parse is bytes klog cannot read, as for a served one.
    await closedFor(rawFrame(0, 2, 1, new Uint8Array([0, 1, 0, 0]), false, 'short'));
    expect(lastLine()).toMatch(/closed: a request klog cannot read \(timeoutMs at byte/);
    await apiVersionsWorks();
  });

  it('a truncated frame and a client that goes away: nothing breaks', async () => {
    const c = await RawClient.connect(b.port);
    const req = await kafkajs('metadata', 6, { topics: [] });
    c.send(req.frame.subarray(0, req.frame.length - 3));
    await sleep(50);
    c.close();
    await apiVersionsWorks();
  });
});

describe('requests on one connection are answered strictly in order, one at a time', () => {
  it('a Metadata sent behind a Fetch that waits is answered after it', async () => {
    const c = await RawClient.connect(b.port);
    const fetch = await waitingFetchRaw('topic-with-a-long-name-0000', 300, 1);
    const metadata = await kafkajs('metadata', 6, { topics: ['topic-with-a-long-name-0001'] }, 2);
    const started = Date.now();
    c.send(Buffer.concat([fetch.frame, metadata.frame]));
    const first = await fetch.decode(await c.next());
    const waited = Date.now() - started;
    const second = await metadata.decode(await c.next());
    expect([first.correlation, second.correlation]).toEqual([1, 2]);
    // The fetch waited for data that never came; the metadata waited behind it (a lower bound, not a timing target).
    expect(waited).toBeGreaterThanOrEqual(250);
    c.close();
  });

  it('a fetch waiting for data gives up when its client goes away', async () => {
    const c = await RawClient.connect(b.port);
    const fetch = await waitingFetchRaw('topic-with-a-long-name-0005', 600_000);
    c.send(fetch.frame);
    while (b.broker.waitingFetches === 0) await sleep(10);
    c.close();
    while (b.broker.waitingFetches > 0) await sleep(10);
    expect(b.lines.filter((l) => l.startsWith('error:'))).toEqual([]);
  });

  it('100 pipelined requests of mixed APIs come back in the order sent', async () => {
    const c = await RawClient.connect(b.port);
    const reqs = [];
    for (let i = 0; i < 100; i++) {
      const kind = i % 3;
      reqs.push(
        kind === 0
          ? await kafkajs('apiVersions', i % 3, {}, i)
          : kind === 1
            ? await kafkajs('metadata', i % 7, { topics: ['topic-with-a-long-name-0002'] }, i)
            : await kafkajs(
                'listOffsets',
                1,
                {
                  replicaId: -1,
                  topics: [
                    { topic: 'topic-with-a-long-name-0003', partitions: [{ partition: 0, timestamp: -1 }] },
                  ],
                },
                i,
              ),
      );
    }
    c.send(Buffer.concat(reqs.map((r) => r.frame)));
    const got: number[] = [];
    for (const r of reqs) got.push((await r.decode(await c.next())).correlation);
    expect(got).toEqual(reqs.map((_, i) => i));
    c.close();
  });
});

describe('limits', () => {
  it('a client that stops reading: the broker holds at most its margin and one response, then stops reading it', async () => {
    const c = await RawClient.connect(b.port);
    const req = await kafkajs('metadata', 6, { topics: [] }, 1); // every topic: about 14 KB per answer
    const n = 2000;
    c.socket.pause();
    c.send(Buffer.concat(Array.from({ length: n }, () => req.frame)));
    let maxBuffered = 0;
    let stalledAt = -1;
    for (let i = 0; i < 200; i++) {
      await sleep(20);
      const conn = b.broker.connections.find((x) => x.remote.endsWith(`:${c.socket.localPort}`));
      if (conn === undefined) continue;
      maxBuffered = Math.max(maxBuffered, conn.bufferedResponseBytes);
      if (stalledAt === conn.requests) break;
      stalledAt = conn.requests;
    }
    // It stopped: far fewer answers than requests made, and never more than the margin plus one answer held.
    expect(stalledAt).toBeGreaterThan(0);
    expect(stalledAt).toBeLessThan(n);
    expect(maxBuffered).toBeLessThanOrEqual(16 * 1024 + 20 * 1024);
    await apiVersionsWorks(901);
    // Once the client reads again, every answer comes, in order.
    c.socket.resume();
    for (let i = 0; i < n; i++) await c.next();
    c.close();
  });

  it('300 connections at once, each answered', async () => {
    const clients = await Promise.all(Array.from({ length: 300 }, () => RawClient.connect(b.port)));
    const answers = await Promise.all(
      clients.map(async (c, i) => {
        const req = await kafkajs(
          'metadata',
          4,
          { topics: ['topic-with-a-long-name-0004'], allowAutoTopicCreation: false },
          i,
        );
        c.send(req.frame);
        return (await req.decode(await c.next())).correlation;
      }),
    );
    expect(answers).toEqual(clients.map((_, i) => i));
    expect(b.broker.connections.length).toBeGreaterThanOrEqual(300);
    for (const c of clients) c.close();
    await Promise.all(clients.map((c) => c.closed));
  });

  it('a connection quiet for QUIET_MS lets its frame buffer go; one still sending keeps it', async () => {
    const quiet = await RawClient.connect(b.port);
    const busy = await RawClient.connect(b.port);
    // A 40 KB value: the frame buffer grows past it and is kept between requests (under 2 MB).
    const value = Buffer.alloc(40_000, 7);
    let correlation = 100;
    for (const c of [quiet, busy]) {
      const req = await produceOneRaw('topic-with-a-long-name-0001', value, correlation++);
      c.send(req.frame);
      await req.decode(await c.next());
    }
    // Each client's connection, found by the client's own port.
    const frameBuffer = (c: RawClient) =>
      b.broker.connections.find((s) => s.remote === `127.0.0.1:${c.socket.localPort}`)?.frameBufferBytes ??
      -1;
    expect(frameBuffer(quiet)).toBeGreaterThan(40_000);
    const started = performance.now();
    // The busy one sends a small request every 500 ms; the quiet one sends nothing.
    while (frameBuffer(quiet) !== 0) {
      expect(performance.now() - started, 'the quiet connection kept its buffer').toBeLessThan(QUIET_MS * 4);
      const req = await kafkajs('apiVersions', 2, {}, correlation++);
      busy.send(req.frame);
      await req.decode(await busy.next());
      await sleep(500);
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(QUIET_MS - 1000);
    expect(frameBuffer(busy)).toBeGreaterThan(40_000);
    // The quiet one still works: the next request allocates again.
    const again = await produceOneRaw('topic-with-a-long-name-0001', value, correlation++);
    quiet.send(again.frame);
    expect((await again.decode(await quiet.next())).correlation).toBe(correlation - 1);
    quiet.close();
    busy.close();
  }, 60_000);

  it('an idle connection is closed after connections.max.idle.ms', async () => {
    const idle = await startBroker({ connectionsMaxIdleMs: 200 });
    try {
      const c = await RawClient.connect(idle.port);
      await c.closed;
      expect(idle.lines.some((l) => /closed: idle for connections.max.idle.ms \(200 ms\)$/.test(l))).toBe(
        true,
      );
    } finally {
      await idle.stop();
    }
  });

  it('a connection owed a response is not idle: a Fetch waiting past connections.max.idle.ms is answered', async () => {
    const idle = await startBroker({ connectionsMaxIdleMs: 200 });
    try {
      await createTopicsRaw(idle.port, [{ name: 'quiet-topic' }]);
      const c = await RawClient.connect(idle.port);
      const fetch = await waitingFetchRaw('quiet-topic', 1000, 41);
      const sent = performance.now();
      c.send(fetch.frame);
      expect((await fetch.decode(await c.next())).correlation).toBe(41);
      // Answered at its max wait, five idle limits later, not dropped at the first.
      expect(performance.now() - sent).toBeGreaterThanOrEqual(900);
      // Then, with nothing owed, the idle limit applies again.
      await c.closed;
      expect(idle.lines.some((l) => /closed: idle for connections.max.idle.ms \(200 ms\)$/.test(l))).toBe(
        true,
      );
    } finally {
      await idle.stop();
    }
  });
});
