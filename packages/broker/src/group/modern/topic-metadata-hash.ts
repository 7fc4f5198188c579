import { createHash } from 'node:crypto';
import type { TopicsImage } from './topics-image.js';

/**
 * The group's MetadataHash (KIP-1101, `ConsumerGroupMetadataValue` tag 0): it changes when a subscribed
 * topic is created, deleted, recreated or gains partitions, and a change bumps the group epoch.
 * Kafka (`Utils.computeGroupHash`/`computeTopicHash`) hashes with XXH3-64 and includes racks; klog takes the
 * first 8 bytes of a SHA-256 over the same fields (magic 0, topic id, name, partition count, then each
 * partition index; klog has no racks), topics sorted by name. Only equality matters, Kafka never interprets
 * the value: a Kafka reading klog's log bumps each group's epoch once, which is harmless.
 */
export function computeGroupHash(topicNames: Iterable<string>, image: TopicsImage): bigint {
  const topics = image.topics();
  const sorted = [...new Set(topicNames)].filter((n) => topics.has(n)).sort();
  if (sorted.length === 0) return 0n;
  const h = createHash('sha256');
  const int32 = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    h.update(b);
  };
  for (const name of sorted) {
    const id = image.topicId(name) ?? '';
    const count = topics.get(name)!;
    h.update(Buffer.of(0));
    h.update(Buffer.from(id.replaceAll('-', '').padStart(32, '0'), 'hex'));
    const nameBytes = Buffer.from(name, 'utf8');
    int32(nameBytes.length);
    h.update(nameBytes);
    int32(count);
    for (let p = 0; p < count; p++) int32(p);
  }
  return h.digest().readBigInt64BE(0);
}
