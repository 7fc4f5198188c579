import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  createLogger,
  FaultInjector,
  resolveConfig,
  type WrittenBatch,
} from '../../src/index.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { kafkajs as client } from '../support/clients.js';
import { kafkajs, RawClient } from '../support/raw-client.js';

/**
 * Teaching faults (klog serve --drop-acks N --close-after-append M): after a Produce request's batches are on
 * the log, its response is dropped (the connection stays open) or its connection closed, for the first N,
 * then M, requests that wrote records; a retry answered as a duplicate wrote nothing and is not counted.
 */

const written = (topic: string, partition: number, first: number, last: number): WrittenBatch => ({
  topic,
  partition,
  firstOffset: first,
  lastOffset: last,
});

function injector(dropAcks: number, closeAfterAppend: number) {
  const lines: string[] = [];
  const f = new FaultInjector(
    { dropAcks, closeAfterAppend },
    createLogger('info', (level, line) => lines.push(`${level} ${line}`)),
  );
  return { f, lines };
}

describe('FaultInjector: which requests lose their answer', () => {
  it('drops the first N that wrote, closes the next M, then answers; each fault is one log line', () => {
    const { f, lines } = injector(2, 1);
    expect(f.afterAppend([written('orders', 0, 0, 9)])).toEqual({
      kind: 'drop',
      line: 'fault: dropped the response to produce #1, orders-0 offsets 0..9',
    });
    expect(f.afterAppend([written('orders', 0, 10, 19)]).kind).toBe('drop');
    expect(f.afterAppend([written('orders', 0, 20, 29)])).toEqual({
      kind: 'close',
      line: 'fault: closed the connection instead of answering produce #3, orders-0 offsets 20..29',
    });
    for (let i = 0; i < 5; i++)
      expect(f.afterAppend([written('orders', 0, 30 + i, 30 + i)]).kind).toBe('answer');
    expect(lines).toEqual([
      'info fault: dropped the response to produce #1, orders-0 offsets 0..9',
      'info fault: dropped the response to produce #2, orders-0 offsets 10..19',
      'info fault: closed the connection instead of answering produce #3, orders-0 offsets 20..29',
    ]);
    expect(f.done).toEqual({ dropped: 2, closed: 1 });
  });

  it('a request that wrote nothing (every partition a duplicate or an error) is answered and not counted', () => {
    const { f, lines } = injector(1, 0);
    for (let i = 0; i < 3; i++) expect(f.afterAppend([]).kind).toBe('answer');
    expect(f.afterAppend([written('t', 0, 0, 0)]).kind).toBe('drop');
    expect(f.afterAppend([]).kind).toBe('answer');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('produce #1,');
  });

  it('a request that wrote to several partitions is one fault, naming each range', () => {
    const { f } = injector(0, 1);
    expect(
      f.afterAppend([written('orders', 0, 5, 7), written('orders', 2, 0, 0), written('audit', 1, 41, 44)]),
    ).toEqual({
      kind: 'close',
      line: 'fault: closed the connection instead of answering produce #1, orders-0 offsets 5..7, orders-2 offsets 0..0, audit-1 offsets 41..44',
    });
  });

  it('off unless asked: no fault, no line, ever', () => {
    const { f, lines } = injector(0, 0);
    expect(f.active).toBe(false);
    for (let i = 0; i < 100; i++) expect(f.afterAppend([written('t', 0, i, i)]).kind).toBe('answer');
    expect(lines).toEqual([]);
  });

  it('the counts are whole numbers, checked at the boundary', () => {
    expect(resolveConfig({ dataDir: 'x' })).toMatchObject({ dropAcks: 0, closeAfterAppend: 0 });
    // The log's defaults and bounds are storage's: a value the log would refuse on open is refused here.
    expect(resolveConfig({ dataDir: 'x' })).toMatchObject({
      segmentBytes: 2 ** 30,
      messageMaxBytes: 1_048_588,
    });
    expect(() => resolveConfig({ dataDir: 'x', segmentBytes: 20 })).toThrow(
      'segmentBytes must be a whole number from 61 to 2147483647, got 20',
    );
    expect(() => resolveConfig({ dataDir: 'x', messageMaxBytes: 64 * 1024 * 1024 + 1 })).toThrow(
      `messageMaxBytes must be a whole number from 61 to ${64 * 1024 * 1024}, got ${64 * 1024 * 1024 + 1}`,
    );
    expect(resolveConfig({ dataDir: 'x', segmentBytes: 61, messageMaxBytes: 61 })).toMatchObject({
      segmentBytes: 61,
      messageMaxBytes: 61,
    });
    expect(() => resolveConfig({ dataDir: 'x', dropAcks: -1 })).toThrow(ConfigError);
    expect(() => resolveConfig({ dataDir: 'x', closeAfterAppend: 1.5 })).toThrow(
      'closeAfterAppend must be a whole number',
    );
  });
});

interface Answer {
  errorCode: number;
  baseOffset: string;
}
type ProduceAnswer = { topics: { topicName: string; partitions: (Answer & { partition: number })[] }[] };

const topicsOf = async (b: TestBroker, topics: { topic: string; numPartitions: number }[]) => {
  const admin = client(b.port).admin();
  await admin.connect();
  await admin.createTopics({ topics });
  await admin.disconnect();
};

/** The frame of a Produce v7 of `count` records to `partitions` (each a [partition, firstSequence]) from producer `pid`. */
function produce(
  topic: string,
  pid: number,
  partitions: [number, number][],
  count: number,
  correlationId: number,
  acks = -1,
) {
  return kafkajs(
    'produce',
    7,
    {
      acks,
      timeout: 30000,
      compression: 0,
      producerId: pid,
      producerEpoch: pid < 0 ? -1 : 0,
      topicData: [
        {
          topic,
          partitions: partitions.map(([partition, firstSequence]) => ({
            partition,
            firstSequence: pid < 0 ? -1 : firstSequence,
            messages: Array.from({ length: count }, (_, i) => ({
              key: `k${firstSequence + i}`,
              value: `v${firstSequence + i}`,
            })),
          })),
        },
      ],
    },
    correlationId,
  );
}

async function producerId(c: RawClient): Promise<number> {
  const req = await kafkajs('initProducerId', 1, { transactionalId: null, transactionTimeout: 60000 }, 990);
  c.send(req.frame);
  return Number((await req.decode(await c.next())).data.producerId);
}

/** A request sent after another on the same connection, whose answer must be the next one: proves the first had none. */
async function nextAnswerIs(c: RawClient, correlationId: number): Promise<void> {
  const probe = await kafkajs('apiVersions', 2, {}, correlationId);
  c.send(probe.frame);
  expect((await probe.decode(await c.next())).correlation).toBe(correlationId);
}

async function logEndOffset(c: RawClient, topic: string, partition: number): Promise<number> {
  const req = await kafkajs(
    'listOffsets',
    1,
    { replicaId: -1, topics: [{ topic, partitions: [{ partition, timestamp: -1 }] }] },
    995,
  );
  c.send(req.frame);
  const data = (await req.decode(await c.next())).data as {
    responses: { partitions: { offset: string }[] }[];
  };
  return Number(data.responses[0]!.partitions[0]!.offset);
}

const faultLines = (b: TestBroker) => b.lines.filter((l) => l.startsWith('info: fault: '));

describe('faults on a real socket', () => {
  it('a dropped response leaves the connection open; the retry is a duplicate, answered with the first offset, and not counted; the next write loses its connection', async () => {
    const b = await startBroker({ dropAcks: 1, closeAfterAppend: 1 });
    try {
      await topicsOf(b, [{ topic: 'orders', numPartitions: 1 }]);
      expect(b.lines).toContain(
        'warn: klog serve: faults on: of the Produce requests that write records, the first 1 lose their response and the next 1 their connection, after the append',
      );
      const c = await RawClient.connect(b.port);
      const pid = await producerId(c);
      const first = await produce('orders', pid, [[0, 0]], 3, 1);
      c.send(first.frame);
      // No answer to correlation 1: the next answer on this connection is the probe's.
      await nextAnswerIs(c, 2);
      expect(c.isClosed).toBe(false);
      // The client's retry, the very same bytes: a duplicate, written nowhere, answered with offset 0.
      c.send(first.frame);
      expect(
        ((await first.decode(await c.next())).data as unknown as ProduceAnswer).topics[0]!.partitions[0],
      ).toMatchObject({
        errorCode: 0,
        baseOffset: '0',
      });
      expect(await logEndOffset(c, 'orders', 0)).toBe(3);
      // The next write is the second that wrote records: its connection is closed, with no answer.
      const second = await produce('orders', pid, [[0, 3]], 2, 3);
      c.send(second.frame);
      await expect(c.next()).rejects.toThrow('closed');
      await c.closed;
      // Its retry on a new connection: a duplicate again, answered; then writes are answered as usual.
      const again = await RawClient.connect(b.port);
      again.send(second.frame);
      expect(
        ((await second.decode(await again.next())).data as unknown as ProduceAnswer).topics[0]!.partitions[0],
      ).toMatchObject({
        errorCode: 0,
        baseOffset: '3',
      });
      const third = await produce('orders', pid, [[0, 5]], 1, 4);
      again.send(third.frame);
      expect(
        ((await third.decode(await again.next())).data as unknown as ProduceAnswer).topics[0]!.partitions[0]!
          .baseOffset,
      ).toBe('5');
      expect(await logEndOffset(again, 'orders', 0)).toBe(6);
      again.close();
      expect(faultLines(b)).toEqual([
        'info: fault: dropped the response to produce #1, orders-0 offsets 0..2',
        'info: fault: closed the connection instead of answering produce #2, orders-0 offsets 3..4',
      ]);
      expect(b.broker.faults).toEqual({ dropped: 1, closed: 1 });
    } finally {
      await b.stop();
    }
  });

  it('without a producer id the broker cannot tell a retry: it is written again, counted again, and can lose its answer too', async () => {
    const b = await startBroker({ dropAcks: 2 });
    try {
      await topicsOf(b, [{ topic: 'plain', numPartitions: 1 }]);
      const c = await RawClient.connect(b.port);
      const batch = await produce('plain', -1, [[0, 0]], 1, 1);
      c.send(batch.frame);
      await nextAnswerIs(c, 2);
      c.send(batch.frame);
      await nextAnswerIs(c, 3);
      c.send(batch.frame);
      expect(
        ((await batch.decode(await c.next())).data as unknown as ProduceAnswer).topics[0]!.partitions[0]!
          .baseOffset,
      ).toBe('2');
      expect(await logEndOffset(c, 'plain', 0)).toBe(3);
      c.close();
      expect(faultLines(b)).toEqual([
        'info: fault: dropped the response to produce #1, plain-0 offsets 0..0',
        'info: fault: dropped the response to produce #2, plain-0 offsets 1..1',
      ]);
    } finally {
      await b.stop();
    }
  });

  it('one request to several partitions is one fault naming what it wrote; a partition that was a duplicate or an error is not named', async () => {
    const b = await startBroker({ dropAcks: 2 });
    try {
      await topicsOf(b, [{ topic: 'multi', numPartitions: 3 }]);
      const c = await RawClient.connect(b.port);
      const pid = await producerId(c);
      const both = await produce(
        'multi',
        pid,
        [
          [0, 0],
          [2, 0],
        ],
        2,
        1,
      );
      c.send(both.frame);
      await nextAnswerIs(c, 2);
      // Partition 0's batch again (a duplicate) with a new batch for partition 1: one write, one fault.
      const mixed = await kafkajs(
        'produce',
        7,
        {
          acks: -1,
          timeout: 30000,
          compression: 0,
          producerId: pid,
          producerEpoch: 0,
          topicData: [
            {
              topic: 'multi',
              partitions: [
                {
                  partition: 0,
                  firstSequence: 0,
                  messages: [
                    { key: 'k0', value: 'v0' },
                    { key: 'k1', value: 'v1' },
                  ],
                },
                { partition: 1, firstSequence: 0, messages: [{ key: 'x', value: 'y' }] },
              ],
            },
          ],
        },
        3,
      );
      c.send(mixed.frame);
      await nextAnswerIs(c, 4);
      // A request that wrote nothing (every partition a duplicate) is answered: the faults are used up.
      c.send(both.frame);
      const answer = (await both.decode(await c.next())).data as unknown as ProduceAnswer;
      expect(answer.topics[0]!.partitions.map((p) => [p.partition, p.errorCode, p.baseOffset])).toEqual([
        [0, 0, '0'],
        [2, 0, '0'],
      ]);
      c.close();
      expect(faultLines(b)).toEqual([
        'info: fault: dropped the response to produce #1, multi-0 offsets 0..1, multi-2 offsets 0..1',
        'info: fault: dropped the response to produce #2, multi-1 offsets 0..0',
      ]);
    } finally {
      await b.stop();
    }
  });

  it('requests that wrote nothing are answered and not counted: an unknown partition, an out-of-order batch, acks=0', async () => {
    const b = await startBroker({ dropAcks: 1 });
    try {
      await topicsOf(b, [{ topic: 'quiet', numPartitions: 1 }]);
      const c = await RawClient.connect(b.port);
      const pid = await producerId(c);
      const unknown = await produce('quiet', pid, [[7, 0]], 1, 1);
      c.send(unknown.frame);
      expect(
        ((await unknown.decode(await c.next())).data as unknown as ProduceAnswer).topics[0]!.partitions[0]!
          .errorCode,
      ).toBe(3);
      const first = await produce('quiet', pid, [[0, 0]], 1, 2, 0);
      // acks=0 wrote a record but has no answer to lose: not counted.
      c.send(first.frame);
      await nextAnswerIs(c, 3);
      const gap = await produce('quiet', pid, [[0, 5]], 1, 4);
      c.send(gap.frame);
      expect(
        ((await gap.decode(await c.next())).data as unknown as ProduceAnswer).topics[0]!.partitions[0]!
          .errorCode,
      ).toBe(45);
      expect(faultLines(b)).toEqual([]);
      // The first request that writes and expects an answer is the one that loses it.
      const next = await produce('quiet', pid, [[0, 1]], 1, 5);
      c.send(next.frame);
      await nextAnswerIs(c, 6);
      c.close();
      expect(faultLines(b)).toEqual([
        'info: fault: dropped the response to produce #1, quiet-0 offsets 1..1',
      ]);
    } finally {
      await b.stop();
    }
  });

  it('no faults asked: every produce is answered and nothing is logged about faults', async () => {
    const b = await startBroker({});
    try {
      await topicsOf(b, [{ topic: 'calm', numPartitions: 1 }]);
      const c = await RawClient.connect(b.port);
      const pid = await producerId(c);
      for (let seq = 0; seq < 20; seq++) {
        const req = await produce('calm', pid, [[0, seq]], 1, 10 + seq);
        c.send(req.frame);
        expect(
          ((await req.decode(await c.next())).data as unknown as ProduceAnswer).topics[0]!.partitions[0]!
            .baseOffset,
        ).toBe(String(seq));
      }
      c.close();
      expect(b.lines.filter((l) => /fault(s on)?:/.test(l) && !l.startsWith('debug: '))).toEqual([]);
      expect(b.broker.faults).toEqual({ dropped: 0, closed: 0 });
    } finally {
      await b.stop();
    }
  });
});
