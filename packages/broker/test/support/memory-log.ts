// TEMPORARY: a stand-in for storage's LogManager until it is merged into this branch (issue 11). Only the
// early tests of the connection layer use it; every test of produce / fetch runs on the real storage.
import { type BrokerLog, type BrokerPartition, LogError } from '../../src/log-port.js';

export function memoryLog(): BrokerLog {
  const topics = new Map<string, number>();
  const partitions = new Map<string, BrokerPartition>();
  return {
    topics: () => topics,
    partition: (t, p) => partitions.get(`${t}-${p}`),
    createTopic(t, n) {
      if (topics.has(t)) throw new LogError('TOPIC_ALREADY_EXISTS', `Topic '${t}' already exists.`);
      topics.set(t, n);
      for (let p = 0; p < n; p++) {
        partitions.set(`${t}-${p}`, {
          topic: t,
          partition: p,
          logStartOffset: 0,
          logEndOffset: 0,
          highWatermark: 0,
          lastStableOffset: 0,
          appendProducerBatch: () => {
            throw new LogError('KAFKA_STORAGE_ERROR', 'memory log: no appends');
          },
          fetch: () => ({ records: new Uint8Array(0), highWatermark: 0, lastStableOffset: 0, logStartOffset: 0 }),
          offsetForTimestamp: () => undefined,
        });
      }
    },
    invalidTopicName: (t) => (/^[a-zA-Z0-9._-]{1,249}$/.test(t) && t !== '.' && t !== '..' ? undefined : `bad name ${t}`),
    close() {},
  };
}
