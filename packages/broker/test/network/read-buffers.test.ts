import { describe, expect, it } from 'vitest';
import { ReadBuffers } from '../../src/network/read-buffers.js';
import { startBroker } from '../support/broker.js';
import { createTopicRaw, kafkajs, produceOneRaw, RawClient } from '../support/raw-client.js';

/**
 * Issue 25: Fetch reads records into memory the broker uses again once the socket has written a
 * response, instead of a fresh Buffer per partition read. What must hold: a buffer is lent to one
 * response at a time, so a response still waiting in a slow consumer's socket keeps its bytes.
 */
const KIB = 1024;

describe('ReadBuffers', () => {
  it('lends a view exactly as long as asked and, once given back, lends the same memory again', () => {
    const pool = new ReadBuffers();
    const first = pool.take(100 * KIB);
    expect(first.length).toBe(100 * KIB);
    expect(first.buffer.byteLength).toBe(128 * KIB);
    pool.give(first);
    expect(pool.freeBytes).toBe(128 * KIB);
    const second = pool.take(70 * KIB);
    expect(second.buffer).toBe(first.buffer);
    expect(second.length).toBe(70 * KIB);
    expect(pool.freeBytes).toBe(0);
    expect(pool.counts).toEqual({ taken: 2, reused: 1 });
  });

  it('a buffer given back twice is pooled once: two later reads get two different buffers', () => {
    const pool = new ReadBuffers();
    const lent = pool.take(200 * KIB);
    pool.give(lent);
    pool.give(lent.subarray(10)); // a second chunk of the same response
    expect(pool.freeBytes).toBe(256 * KIB);
    const a = pool.take(200 * KIB);
    const b = pool.take(200 * KIB);
    expect(a.buffer).not.toBe(b.buffer);
  });

  it('memory it did not lend, and small reads, are never pooled', () => {
    const pool = new ReadBuffers();
    pool.give(Buffer.alloc(128 * KIB));
    pool.give(new Uint8Array(256 * KIB));
    const small = pool.take(4 * KIB);
    pool.give(small);
    expect(pool.freeBytes).toBe(0);
    expect(pool.counts.taken).toBe(0);
  });

  it('keeps at most retainBytes waiting; buffers given back past it are let go', () => {
    const pool = new ReadBuffers(256 * KIB);
    const lent = [pool.take(200 * KIB), pool.take(200 * KIB), pool.take(200 * KIB)];
    for (const b of lent) pool.give(b);
    expect(pool.freeBytes).toBe(256 * KIB);
  });
});

/** A Fetch v11 of one batch (at most 250 KiB) at `offset`. */
function fetchOne(topic: string, offset: number, correlationId: number) {
  return kafkajs(
    'fetch',
    11,
    {
      replicaId: -1,
      maxWaitTime: 0,
      minBytes: 0,
      maxBytes: 250 * KIB,
      isolationLevel: 1,
      topics: [{ topic, partitions: [{ partition: 0, fetchOffset: String(offset), maxBytes: 250 * KIB }] }],
    },
    correlationId,
  );
}

/** The values of the records a Fetch response holds, as KafkaJS reads them. */
async function valuesOf(request: Awaited<ReturnType<typeof fetchOne>>, frame: Uint8Array): Promise<Buffer[]> {
  const { data } = await request.decode(frame);
  const responses = data.responses as {
    partitions: { errorCode: number; messages: { value: Buffer }[] }[];
  }[];
  const partition = responses[0]!.partitions[0]!;
  expect(partition.errorCode).toBe(0);
  return partition.messages.map((m) => m.value);
}

describe('Fetch into reused memory', () => {
  it('a consumer reading each response reuses memory; one that stops reading keeps 30 responses intact meanwhile', async () => {
    const b = await startBroker();
    try {
      await createTopicRaw(b.port, 'reads');
      const producer = await RawClient.connect(b.port);
      for (const fill of [1, 2, 3]) {
        const request = await produceOneRaw('reads', Buffer.alloc(200 * KIB, fill), fill);
        producer.send(request.frame);
        await producer.next();
      }
      producer.close();

      // The slow consumer asks 30 times for the batch at offset 0 (all 1s) and does not read: about 6 MB,
      // more than loopback's socket buffers take, so some responses wait in the broker, their memory lent.
      const slow = await RawClient.connect(b.port);
      slow.socket.pause();
      const slowRequests = [];
      for (let i = 0; i < 30; i++) {
        const request = await fetchOne('reads', 0, 100 + i);
        slowRequests.push(request);
        slow.send(request.frame);
      }

      // Meanwhile another consumer reads offsets 1 and 2 (all 2s, all 3s) in turn, 40 times.
      const fast = await RawClient.connect(b.port);
      for (let i = 0; i < 40; i++) {
        const offset = 1 + (i % 2);
        const request = await fetchOne('reads', offset, 1000 + i);
        fast.send(request.frame);
        const values = await valuesOf(request, await fast.next());
        expect(values).toHaveLength(1);
        expect(values[0]!.equals(Buffer.alloc(200 * KIB, 1 + offset))).toBe(true);
      }
      fast.close();
      expect(b.broker.fetchReadBuffers.reused).toBeGreaterThan(0);

      slow.socket.resume();
      for (const request of slowRequests) {
        const values = await valuesOf(request, await slow.next());
        expect(values).toHaveLength(1);
        expect(values[0]!.equals(Buffer.alloc(200 * KIB, 1))).toBe(true);
      }
      slow.close();
    } finally {
      await b.stop();
    }
  });
});
