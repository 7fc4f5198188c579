// The order Java's HashMap and HashSet hand their entries back in. Kafka's tools print some maps as they
// iterate them (LogDirsCommand's JSON, DeleteRecordsCommand's low watermarks, ConfigCommand's topic list),
// so printing what Kafka prints means iterating as java.util.HashMap does: by bucket, the bucket being the
// key's hashCode spread (`h ^ (h >>> 16)`) and masked by the table size, which starts at 16 and doubles
// past three quarters full; entries of one bucket keep the order they were put in.

/** Java's `String.hashCode()`: s[0]·31^(n−1) + … + s[n−1], in 32-bit arithmetic over UTF-16 code units. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's `TopicPartition.hashCode()`: 31 · (31 + partition) + topic.hashCode(). */
export function topicPartitionHash(topic: string, partition: number): number {
  return (Math.imul(31, 31 + partition) + javaStringHash(topic)) | 0;
}

/** `items` in the order a java.util.HashMap holding them (put in this order) iterates them. */
export function javaHashOrder<T>(items: readonly T[], hash: (item: T) => number): T[] {
  let capacity = 16;
  while (items.length > capacity * 0.75) capacity *= 2;
  const bucket = (item: T) => {
    const h = hash(item);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  // Array.prototype.sort is stable: one bucket's entries stay in insertion order.
  return items
    .map((item) => ({ item, b: bucket(item) }))
    .sort((x, y) => x.b - y.b)
    .map((x) => x.item);
}

/** An object whose keys are in the order a java.util.HashMap of them iterates (Jackson writes that order). */
export function javaHashObject(entries: readonly [string, unknown][]): Record<string, unknown> {
  return Object.fromEntries(javaHashOrder(entries, ([k]) => javaStringHash(k)));
}
