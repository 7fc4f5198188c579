import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../../support/broker.js';
import { kafkajs as client } from '../../support/clients.js';
import { kafkajs, RawClient } from '../../support/raw-client.js';

/**
 * The idempotent producer through the broker, with the batches a client sends (KafkaJS's encoder, its
 * producer id, epoch and first sequence set by hand): Kafka 4.1's rules, as storage applies them, answered
 * as Kafka answers — a retry of a written batch is NONE with the offset it was first written at, never
 * DUPLICATE_SEQUENCE_NUMBER.
 */
let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({});
  const admin = client(b.port).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'idem', numPartitions: 1 }] });
  await admin.disconnect();
});
afterAll(() => b.stop());

interface Answer {
  errorCode: number;
  baseOffset: string;
}

/** The frame of one Produce v7 of `count` records from producer `pid` at `epoch`, first sequence `seq`. */
async function batch(pid: number, epoch: number, seq: number, count: number, correlationId: number) {
  return kafkajs(
    'produce',
    7,
    {
      acks: -1,
      timeout: 30000,
      compression: 0,
      producerId: pid,
      producerEpoch: epoch,
      topicData: [
        {
          topic: 'idem',
          partitions: [
            {
              partition: 0,
              firstSequence: seq,
              messages: Array.from({ length: count }, (_, i) => ({
                key: `s${seq + i}`,
                value: `record ${seq + i}`,
              })),
            },
          ],
        },
      ],
    },
    correlationId,
  );
}

async function send(c: RawClient, req: Awaited<ReturnType<typeof batch>>): Promise<Answer> {
  c.send(req.frame);
  const data = (await req.decode(await c.next())).data as { topics: { partitions: Answer[] }[] };
  return data.topics[0]!.partitions[0]!;
}

async function logEndOffset(c: RawClient): Promise<number> {
  const req = await kafkajs(
    'listOffsets',
    1,
    { replicaId: -1, topics: [{ topic: 'idem', partitions: [{ partition: 0, timestamp: -1 }] }] },
    999,
  );
  c.send(req.frame);
  const data = (await req.decode(await c.next())).data as {
    responses: { partitions: { offset: string }[] }[];
  };
  return Number(data.responses[0]!.partitions[0]!.offset);
}

async function producerId(c: RawClient): Promise<number> {
  const req = await kafkajs('initProducerId', 1, { transactionalId: null, transactionTimeout: 60000 }, 998);
  c.send(req.frame);
  return Number((await req.decode(await c.next())).data.producerId);
}

describe('Kafka 4.1’s producer rules through the broker', () => {
  it('a resend of a written batch: NONE with its original base offset, nothing written', async () => {
    const c = await RawClient.connect(b.port);
    const pid = await producerId(c);
    const first = await batch(pid, 0, 0, 3, 1);
    expect(await send(c, first)).toMatchObject({ errorCode: 0, baseOffset: '0' });
    expect(await send(c, await batch(pid, 0, 3, 2, 2))).toMatchObject({ errorCode: 0, baseOffset: '3' });
    // The ack of the first batch was lost; the client sends it again, the very same bytes.
    expect(await send(c, first)).toMatchObject({ errorCode: 0, baseOffset: '0' });
    expect(await logEndOffset(c)).toBe(5);
    c.close();
  });

  it('a gap: OUT_OF_ORDER_SEQUENCE_NUMBER, nothing written; a batch the window no longer holds: the same', async () => {
    const c = await RawClient.connect(b.port);
    const pid = await producerId(c);
    const start = await logEndOffset(c);
    const old = await batch(pid, 0, 0, 1, 1);
    expect((await send(c, old)).errorCode).toBe(0);
    expect((await send(c, await batch(pid, 0, 5, 1, 2))).errorCode).toBe(45);
    for (let seq = 1; seq <= 5; seq++)
      expect((await send(c, await batch(pid, 0, seq, 1, 10 + seq))).errorCode).toBe(0);
    // Five batches later, the first is out of the window of five: its resend is no longer recognised.
    expect((await send(c, old)).errorCode).toBe(45);
    expect(await logEndOffset(c)).toBe(start + 6);
    c.close();
  });

  it('epochs: a newer one starts at sequence 0; an older one is INVALID_PRODUCER_EPOCH', async () => {
    const c = await RawClient.connect(b.port);
    const pid = await producerId(c);
    expect((await send(c, await batch(pid, 0, 0, 2, 1))).errorCode).toBe(0);
    expect((await send(c, await batch(pid, 1, 5, 1, 2))).errorCode).toBe(45);
    expect((await send(c, await batch(pid, 1, 0, 1, 3))).errorCode).toBe(0);
    expect((await send(c, await batch(pid, 0, 2, 1, 4))).errorCode).toBe(47);
    c.close();
  });

  it('a producer the partition does not know accepts any first sequence (Kafka’s rule, not the chapter’s)', async () => {
    const c = await RawClient.connect(b.port);
    const pid = await producerId(c);
    expect((await send(c, await batch(pid, 0, 41, 2, 1))).errorCode).toBe(0);
    expect((await send(c, await batch(pid, 0, 43, 1, 2))).errorCode).toBe(0);
    c.close();
  });

  it('after a restart the broker still knows the window: a resend of the last batch is NONE at its offset', async () => {
    const c = await RawClient.connect(b.port);
    const pid = await producerId(c);
    const last = await batch(pid, 0, 0, 4, 1);
    const written = await send(c, last);
    expect(written.errorCode).toBe(0);
    c.close();
    b = await b.restart();
    const again = await RawClient.connect(b.port);
    expect(await send(again, last)).toEqual(
      expect.objectContaining({ errorCode: 0, baseOffset: written.baseOffset }),
    );
    again.close();
  });
});
