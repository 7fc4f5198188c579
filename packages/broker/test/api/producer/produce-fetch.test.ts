import { decodeResponse, encodeRequest, ListOffsets, type ListOffsetsResponse } from '@klog/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { kafkajs as client, kcatConsume } from '../../support/clients.js';
import { kafkajs, RawClient } from '../../support/raw-client.js';

/**
 * Produce, Fetch and ListOffsets as Kafka answers them, request by request (KafkaJS's own encoders and
 * decoders on a raw connection), and through clients.
 */
let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({});
  const admin = client(b.port).admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic: 'orders', numPartitions: 2 },
      { topic: 'timed', numPartitions: 1 },
      { topic: 'max-time', numPartitions: 2 },
    ],
  });
  await admin.disconnect();
});
afterAll(() => b.stop());

type ProduceAnswer = {
  topics: { topicName: string; partitions: { partition: number; errorCode: number; baseOffset: string }[] }[];
};

async function produce(c: RawClient, args: Record<string, unknown>, correlationId: number, version = 7) {
  const req = await kafkajs(
    'produce',
    version,
    { acks: -1, timeout: 30000, compression: 0, ...args },
    correlationId,
  );
  c.send(req.frame);
  return (await req.decode(await c.next())).data as unknown as ProduceAnswer;
}

const messages = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    key: `${tag}-${i}`,
    value: `${tag} value ${i}`,
    timestamp: 1_700_000_000_000 + i,
  }));

describe('Produce', () => {
  it('appends a batch at the log end offset and answers its base offset, per partition', async () => {
    const c = await RawClient.connect(b.port);
    const first = await produce(
      c,
      { topicData: [{ topic: 'orders', partitions: [{ partition: 0, messages: messages(3, 'a') }] }] },
      1,
    );
    const second = await produce(
      c,
      {
        topicData: [
          {
            topic: 'orders',
            partitions: [
              { partition: 0, messages: messages(2, 'b') },
              { partition: 1, messages: messages(1, 'c') },
            ],
          },
        ],
      },
      2,
    );
    expect(first.topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, baseOffset: '0' });
    expect(second.topics[0]!.partitions.map((p) => [p.partition, p.errorCode, p.baseOffset])).toEqual([
      [0, 0, '3'],
      [1, 0, '0'],
    ]);
    c.close();
  });

  it('a topic or partition that does not exist: UNKNOWN_TOPIC_OR_PARTITION for it, the others appended', async () => {
    const c = await RawClient.connect(b.port);
    const answer = await produce(
      c,
      {
        topicData: [
          { topic: 'nope', partitions: [{ partition: 0, messages: messages(1, 'x') }] },
          {
            topic: 'orders',
            partitions: [
              { partition: 7, messages: messages(1, 'x') },
              { partition: 1, messages: messages(1, 'y') },
            ],
          },
        ],
      },
      3,
    );
    expect(
      answer.topics.map((t) => [t.topicName, t.partitions.map((p) => [p.partition, p.errorCode])]),
    ).toEqual([
      ['nope', [[0, 3]]],
      [
        'orders',
        [
          [7, 3],
          [1, 0],
        ],
      ],
    ]);
    c.close();
  });

  it('acks other than −1, 0, 1: INVALID_REQUIRED_ACKS', async () => {
    const c = await RawClient.connect(b.port);
    const answer = await produce(
      c,
      {
        acks: 2,
        topicData: [{ topic: 'orders', partitions: [{ partition: 0, messages: messages(1, 'z') }] }],
      },
      4,
    );
    expect(answer.topics[0]!.partitions[0]!.errorCode).toBe(21);
    c.close();
  });

  it('acks=0: no answer; a failed acks=0 produce closes the connection (Kafka’s only way to say so)', async () => {
    const c = await RawClient.connect(b.port);
    const quiet = await kafkajs(
      'produce',
      7,
      {
        acks: 0,
        timeout: 1000,
        compression: 0,
        topicData: [{ topic: 'orders', partitions: [{ partition: 1, messages: messages(1, 'q') }] }],
      },
      5,
    );
    const check = await kafkajs('apiVersions', 2, {}, 6);
    c.send(Buffer.concat([quiet.frame, check.frame]));
    // The next answer on the connection is the ApiVersions one: the produce had none.
    expect((await check.decode(await c.next())).correlation).toBe(6);
    const failing = await kafkajs(
      'produce',
      7,
      {
        acks: 0,
        timeout: 1000,
        compression: 0,
        topicData: [{ topic: 'nope', partitions: [{ partition: 0, messages: messages(1, 'q') }] }],
      },
      7,
    );
    c.send(failing.frame);
    await c.closed;
    expect(b.lines.some((l) => /closed: Produce v7 correlation 7: acks=0 produce failed/.test(l))).toBe(true);
  });

  it('records that are not exactly one v2 batch: INVALID_RECORD; none: INVALID_RECORD', async () => {
    const c = await RawClient.connect(b.port);
    const one = await kafkajs(
      'produce',
      7,
      {
        acks: -1,
        timeout: 1000,
        compression: 0,
        topicData: [{ topic: 'orders', partitions: [{ partition: 1, messages: messages(2, 'd') }] }],
      },
      8,
    );
    // Two batches in one partition's records: the request's records field, doubled, its length fixed.
    const frame = Buffer.from(one.frame);
    const recordsLengthAt = findRecords(frame);
    const batch = frame.subarray(recordsLengthAt + 4);
    const doubled = Buffer.concat([frame.subarray(0, recordsLengthAt), Buffer.alloc(4), batch, batch]);
    doubled.writeInt32BE(batch.length * 2, recordsLengthAt);
    doubled.writeInt32BE(doubled.length - 4, 0);
    c.send(doubled);
    const answer = (await one.decode(await c.next())).data as unknown as ProduceAnswer;
    expect(answer.topics[0]!.partitions[0]!.errorCode).toBe(87);
    // Null records (length −1).
    const none = Buffer.concat([frame.subarray(0, recordsLengthAt), Buffer.from([0xff, 0xff, 0xff, 0xff])]);
    none.writeInt32BE(none.length - 4, 0);
    c.send(none);
    const nothing = (await one.decode(await c.next())).data as unknown as ProduceAnswer;
    expect(nothing.topics[0]!.partitions[0]!.errorCode).toBe(87);
    c.close();
  });
});

/** The offset of a single-partition produce frame's records length (the batch is the frame's tail). */
function findRecords(frame: Buffer): number {
  for (let at = frame.length - 61; at >= 0; at--) {
    if (frame.readInt32BE(at) === frame.length - at - 4 && frame[at + 4 + 16] === 2) return at;
  }
  throw new Error('no records in the frame');
}

type FetchAnswer = {
  responses: {
    topicName: string;
    partitions: {
      partition: number;
      errorCode: number;
      highWatermark: string;
      lastStableOffset: string;
      messages: { offset: string; key: Buffer }[];
    }[];
  }[];
};

async function fetch(
  c: RawClient,
  partitions: { partition: number; fetchOffset: string; maxBytes: number }[],
  correlationId: number,
  extra: Record<string, unknown> = {},
) {
  const req = await kafkajs(
    'fetch',
    11,
    {
      replicaId: -1,
      maxWaitTime: 0,
      minBytes: 0,
      maxBytes: 10_000_000,
      isolationLevel: 1,
      topics: [{ topic: 'orders', partitions }],
      ...extra,
    },
    correlationId,
  );
  c.send(req.frame);
  return (await req.decode(await c.next())).data as unknown as FetchAnswer;
}

describe('Fetch', () => {
  it('returns whole batches from the one holding the offset; LSO = HW = log end offset', async () => {
    const c = await RawClient.connect(b.port);
    const answer = await fetch(c, [{ partition: 0, fetchOffset: '4', maxBytes: 1_000_000 }], 10);
    const p = answer.responses[0]!.partitions[0]!;
    expect(p.errorCode).toBe(0);
    expect(p.highWatermark).toBe('5');
    expect(p.lastStableOffset).toBe('5');
    // The batch holding offset 4 starts at 3: a client skips the records before the offset it asked for.
    expect(p.messages.map((m) => m.offset)).toEqual(['3', '4']);
    c.close();
  });

  it('at the log end offset: NONE and no records; past it or before the start: OFFSET_OUT_OF_RANGE', async () => {
    const c = await RawClient.connect(b.port);
    const answer = await fetch(
      c,
      [
        { partition: 0, fetchOffset: '5', maxBytes: 1000 },
        { partition: 1, fetchOffset: '99', maxBytes: 1000 },
      ],
      11,
    );
    expect(answer.responses[0]!.partitions.map((p) => [p.partition, p.errorCode, p.messages.length])).toEqual(
      [
        [0, 0, 0],
        [1, 1, 0],
      ],
    );
    c.close();
  });

  it('a first batch larger than the limits is returned whole (KIP-74); later ones wait for the next fetch', async () => {
    const c = await RawClient.connect(b.port);
    const answer = await fetch(
      c,
      [
        { partition: 0, fetchOffset: '0', maxBytes: 1 },
        { partition: 1, fetchOffset: '0', maxBytes: 1 },
      ],
      12,
      { maxBytes: 1 },
    );
    const [p0, p1] = answer.responses[0]!.partitions;
    expect(p0!.messages.map((m) => m.offset)).toEqual(['0', '1', '2']);
    expect(p1!.messages).toEqual([]);
    expect(p1!.errorCode).toBe(0);
    c.close();
  });

  it('waits up to MaxWaitMs for MinBytes, and answers as soon as an append brings data', async () => {
    const c = await RawClient.connect(b.port);
    const req = await kafkajs(
      'fetch',
      11,
      {
        replicaId: -1,
        maxWaitTime: 60_000,
        minBytes: 1,
        maxBytes: 1_000_000,
        topics: [{ topic: 'orders', partitions: [{ partition: 1, fetchOffset: '3', maxBytes: 1_000_000 }] }],
      },
      13,
    );
    c.send(req.frame);
    const answered = c.next();
    const p = await RawClient.connect(b.port);
    await produce(
      p,
      { topicData: [{ topic: 'orders', partitions: [{ partition: 1, messages: messages(1, 'late') }] }] },
      14,
    );
    p.close();
    const answer = (await req.decode(await answered)).data as unknown as FetchAnswer;
    expect(answer.responses[0]!.partitions[0]!.messages.map((m) => m.key.toString())).toEqual(['late-0']);
    c.close();
  });

  it('a fetch session asked for by id: FETCH_SESSION_ID_NOT_FOUND (klog keeps no sessions)', async () => {
    const c = await RawClient.connect(b.port);
    const req = await kafkajs(
      'fetch',
      11,
      {
        replicaId: -1,
        maxWaitTime: 0,
        minBytes: 0,
        maxBytes: 100,
        sessionId: 42,
        sessionEpoch: 1,
        topics: [],
      },
      15,
    );
    c.send(req.frame);
    expect((await req.decode(await c.next())).data.errorCode).toBe(70);
    c.close();
  });
});

describe('ListOffsets', () => {
  it('earliest, latest and by timestamp, through KafkaJS’s admin and kcat', async () => {
    const c = await RawClient.connect(b.port);
    await produce(
      c,
      { topicData: [{ topic: 'timed', partitions: [{ partition: 0, messages: messages(3, 't') }] }] },
      20,
    );
    await produce(
      c,
      {
        topicData: [
          {
            topic: 'timed',
            partitions: [
              {
                partition: 0,
                messages: messages(3, 'u').map((m, i) => ({ ...m, timestamp: 1_800_000_000_000 + i })),
              },
            ],
          },
        ],
      },
      21,
    );
    c.close();
    const admin = client(b.port).admin();
    await admin.connect();
    try {
      expect(await admin.fetchTopicOffsets('timed')).toMatchObject([
        { partition: 0, offset: '6', low: '0', high: '6' },
      ]);
      expect(await admin.fetchTopicOffsetsByTimestamp('timed', 1_800_000_000_000)).toEqual([
        { partition: 0, offset: '3' },
      ]);
      // Past the last timestamp the broker answers −1, which KafkaJS turns into the latest offset.
      expect(await admin.fetchTopicOffsetsByTimestamp('timed', 1_900_000_000_000)).toEqual([
        { partition: 0, offset: '6' },
      ]);
    } finally {
      await admin.disconnect();
    }
    const read = await kcatConsume(b.port, 'timed');
    expect(read.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('v0: the offset as a list of one', async () => {
    const c = await RawClient.connect(b.port);
    const req = await kafkajs(
      'listOffsets',
      0,
      {
        replicaId: -1,
        topics: [
          {
            topic: 'timed',
            partitions: [
              { partition: 0, timestamp: -1 },
              { partition: 5, timestamp: -1 },
            ],
          },
        ],
      },
      22,
    );
    c.send(req.frame);
    const data = (await req.decode(await c.next())).data as {
      responses: { partitions: { partition: number; errorCode: number; offsets: string[] }[] }[];
    };
    expect(data.responses[0]!.partitions).toEqual([
      { partition: 0, errorCode: 0, offsets: ['6'] },
      { partition: 5, errorCode: 3, offsets: [] },
    ]);
    c.close();
  });

  it('v7–v10: max timestamp, earliest local and latest tiered, as a Kafka 4.1 broker without tiered storage', async () => {
    const c = await RawClient.connect(b.port);
    // The largest timestamp is in the middle of the second batch, and again in the third: the first holder wins.
    const stamps = [
      [5_000, 9_000, 6_000],
      [7_000, 9_500, 8_000],
      [9_500, 1_000],
    ];
    for (const [i, batch] of stamps.entries()) {
      await produce(
        c,
        {
          topicData: [
            {
              topic: 'max-time',
              partitions: [
                {
                  partition: 0,
                  messages: batch.map((t, j) => ({
                    key: `k${i}${j}`,
                    value: 'v',
                    timestamp: 1_700_000_000_000 + t,
                  })),
                },
              ],
            },
          ],
        },
        40 + i,
      );
    }
    const lookups = [-3, -4, -5, -1];
    for (const version of [7, 8, 9, 10]) {
      c.send(
        encodeRequest(ListOffsets, version, 50 + version, 'max-time-test', {
          replicaId: -1,
          isolationLevel: 0,
          timeoutMs: 1000,
          topics: [
            {
              name: 'max-time',
              partitions: [0, 1].flatMap((partitionIndex) =>
                lookups
                  .filter((t) => (t === -4 ? version >= 8 : t === -5 ? version >= 9 : true))
                  .map((timestamp) => ({
                    partitionIndex,
                    currentLeaderEpoch: -1,
                    timestamp,
                    maxNumOffsets: 1,
                  })),
              ),
            },
          ],
        }),
      );
      const answer = decodeResponse<ListOffsetsResponse>(ListOffsets, version, await c.next()).body;
      const got = answer.topics[0]!.partitions.map((p) => [
        p.partitionIndex,
        p.errorCode,
        p.offset,
        p.timestamp,
      ]);
      const expected = [
        [0, 0, 4, 1_700_000_009_500], // −3: offset 4, the second batch's second record
        [0, 0, 0, -1], // −4: the log start offset
        [0, 0, -1, -1], // −5: nothing tiered
        [0, 0, 8, -1], // −1: the log end offset
        [1, 0, -1, -1], // −3 on an empty partition: none
        [1, 0, 0, -1],
        [1, 0, -1, -1],
        [1, 0, 0, -1],
      ].filter((_, i) => {
        const t = lookups[i % 4]!;
        return t === -4 ? version >= 8 : t === -5 ? version >= 9 : true;
      });
      expect(got, `v${version}`).toEqual(expected);
    }
    c.close();
  });
});
