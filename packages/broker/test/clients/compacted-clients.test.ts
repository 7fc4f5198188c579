import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compact, Partition } from '@klog/storage';
import { describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../support/broker.js';
import { kafkajs, pythonConsume } from '../support/clients.js';

const TOPIC = 'compacted-prices';
const SEGMENT_BYTES = 2048;
const KEYS = 60;
const ROUNDS = 40;

/**
 * A compacted partition after many rounds of overwrite and clean (issue 40): each round an idempotent
 * producer (a new producer id each time, as a restarted application gets) writes every key again, then the
 * partition is cleaned with the broker stopped (storage's `compact`, what the broker's cleaner runs). Before,
 * the rounds left a hundred segment files, many holding emptied batches alone, and librdkafka, handed
 * fetch after fetch with no record, reported MSG_SIZE_TOO_LARGE to the application.
 */
describe('a partition compacted round after round', () => {
  it('stays in a bounded number of segments, and librdkafka reads every key’s last value with no error', {
    timeout: 300_000,
  }, async () => {
    let b: TestBroker = await startBroker();
    const dataDir = b.dataDir;
    try {
      const admin = kafkajs(b.port).admin();
      await admin.connect();
      await admin.createTopics({
        topics: [
          {
            topic: TOPIC,
            numPartitions: 1,
            configEntries: [
              { name: 'cleanup.policy', value: 'compact' },
              { name: 'segment.bytes', value: String(SEGMENT_BYTES) },
            ],
          },
        ],
      });
      await admin.disconnect();
      for (let round = 0; round < ROUNDS; round++) {
        const producer = kafkajs(b.port).producer({ idempotent: true, maxInFlightRequests: 1 });
        await producer.connect();
        // Ten keys a batch: several batches a round, each in the producer's window until later ones push it out.
        for (let from = 0; from < KEYS; from += 10) {
          await producer.send({
            topic: TOPIC,
            acks: -1,
            messages: Array.from({ length: 10 }, (_, j) => ({
              key: `key-${from + j}`,
              value: `round ${round}`,
              partition: 0,
            })),
          });
        }
        await producer.disconnect();
        await b.broker.close();
        const p = Partition.open(dataDir, TOPIC, 0, { segmentBytes: SEGMENT_BYTES });
        try {
          compact(p);
        } finally {
          p.close();
        }
        b = await startBroker({}, dataDir);
      }
      // confluent_kafka's consumer raises on any error it is given (clients.py consume).
      const records = await pythonConsume(b.port, TOPIC, 1);
      const latest = new Map(records.map((r) => [r.key, r.value]));
      expect(latest.size).toBe(KEYS);
      for (let k = 0; k < KEYS; k++) expect(latest.get(`key-${k}`)).toBe(`round ${ROUNDS - 1}`);
      const segments = readdirSync(join(dataDir, `${TOPIC}-0`)).filter((n) => n.endsWith('.log'));
      expect(segments.length).toBeLessThanOrEqual(10);
    } finally {
      await b.stop();
    }
  });
});
