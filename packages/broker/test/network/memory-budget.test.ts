import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startBroker } from '../support/broker.js';
import { createTopicRaw, kafkajs, produceOneRaw, RawClient } from '../support/raw-client.js';

/**
 * Case 7 of issue 22: one budget, `queuedMaxRequestBytes` (Kafka's `queued.max.request.bytes`), bounds the
 * bytes of requests being read over all connections, and the bytes of responses clients leave unread;
 * past it the broker stops reading sockets (back-pressure) instead of growing.
 */
const MIB = 1024 * 1024;

/** Waits, polling the broker's own figures, until `ready` holds (a generous bound: only a hang reaches it). */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (ready()) return;
    await sleep(20);
  }
  throw new Error(`never happened: ${what}`);
}

/** A Produce of one record with a value of `valueBytes` (each byte the correlation id), framed. */
function bigProduce(topic: string, valueBytes: number, correlationId: number) {
  return produceOneRaw(topic, Buffer.alloc(valueBytes, correlationId), correlationId);
}

describe('queued.max.request.bytes: requests', () => {
  it('six clients each part-way through a 900 KiB request under a 1 MiB budget: one is read, the others wait unread; all are answered', async () => {
    const b = await startBroker({ queuedMaxRequestBytes: MIB, socketRequestMaxBytes: 2 * MIB });
    try {
      await createTopicRaw(b.port, 'big');
      const clients = await Promise.all(Array.from({ length: 6 }, () => RawClient.connect(b.port)));
      const requests = await Promise.all(clients.map((_, i) => bigProduce('big', 900 * 1024, i + 1)));
      // Each sends all but the last 100 KiB of its frame, and stops there.
      for (const [i, c] of clients.entries())
        c.send(requests[i]!.frame.subarray(0, requests[i]!.frame.length - 100 * 1024));
      await until(
        () => b.broker.connections.some((c) => c.bufferedRequestBytes > 700 * 1024),
        'one connection read most of its frame',
      );
      const buffered = b.broker.connections.map((c) => c.bufferedRequestBytes);
      // One frame's bytes, and at most a socket read's worth (64 KiB) from each of the others.
      expect(buffered.reduce((a, n) => a + n, 0)).toBeLessThanOrEqual(MIB + 6 * 64 * 1024);
      expect(buffered.filter((n) => n > 64 * 1024)).toHaveLength(1);
      expect(b.broker.memory.requests.used).toBeLessThanOrEqual(MIB);
      for (const [i, c] of clients.entries())
        c.send(requests[i]!.frame.subarray(requests[i]!.frame.length - 100 * 1024));
      const answers = await Promise.all(
        clients.map(async (c, i) => (await requests[i]!.decode(await c.next())).correlation),
      );
      expect(answers).toEqual([1, 2, 3, 4, 5, 6]);
      expect(b.broker.memory.requests.peak).toBeLessThanOrEqual(MIB);
      await until(() => b.broker.memory.requests.used === 0, 'every reservation released');
      for (const c of clients) c.close();
    } finally {
      await b.stop();
    }
  });

  it('a frame larger than the whole budget is still read, alone', async () => {
    const b = await startBroker({ queuedMaxRequestBytes: 64 * 1024, socketRequestMaxBytes: 2 * MIB });
    try {
      await createTopicRaw(b.port, 'huge');
      const c = await RawClient.connect(b.port);
      const request = await bigProduce('huge', 500 * 1024, 9);
      c.send(request.frame);
      expect((await request.decode(await c.next())).correlation).toBe(9);
      c.close();
    } finally {
      await b.stop();
    }
  });
});

describe('queued.max.request.bytes: responses', () => {
  it('20 consumers that never read their Fetch responses pin at most the budget and one batch each', async () => {
    const budget = 4 * MIB;
    const b = await startBroker({ queuedMaxRequestBytes: budget });
    try {
      await createTopicRaw(b.port, 'wide');
      const producer = await RawClient.connect(b.port);
      for (let i = 1; i <= 40; i++) {
        const request = await bigProduce('wide', 200 * 1024, i);
        producer.send(request.frame);
        await producer.next();
      }
      producer.close();
      const consumers = await Promise.all(Array.from({ length: 20 }, () => RawClient.connect(b.port)));
      for (const [i, c] of consumers.entries()) {
        c.socket.pause(); // never reads: the responses stay in the broker once the kernel's buffers are full
        const fetch = await kafkajs(
          'fetch',
          11,
          {
            replicaId: -1,
            maxWaitTime: 0,
            minBytes: 0,
            maxBytes: 50 * MIB,
            isolationLevel: 1,
            topics: [{ topic: 'wide', partitions: [{ partition: 0, fetchOffset: '0', maxBytes: 50 * MIB }] }],
          },
          100 + i,
        );
        c.send(fetch.frame);
      }
      await until(
        () => b.broker.connections.filter((c) => c.requests === 1 && !c.busy).length >= 20,
        'every consumer answered',
      );
      const batch = 200 * 1024 + 1024;
      expect(b.broker.memory.responses.peak).toBeLessThanOrEqual(budget + 20 * batch);
      for (const c of consumers) c.close();
      await until(
        () => b.broker.memory.responses.used === 0,
        'every response released once its connection closed',
      );
    } finally {
      await b.stop();
    }
  });
});
