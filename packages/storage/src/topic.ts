import { StorageError } from './errors.js';

/** Kafka's `Topic.MAX_NAME_LENGTH`. */
export const MAX_TOPIC_NAME_LENGTH = 249;

/**
 * Kafka's `Topic.validate`: ASCII letters, digits, `.`, `_` and `-`, at most 249
 * characters, and not `.` or `..`. With that, `<topic>-<partition>` can never name a
 * path outside the data directory.
 */
export function validateTopicName(topic: string): string {
  if (topic.length === 0) throw new StorageError('topic name is empty');
  if (topic === '.' || topic === '..') throw new StorageError(`topic name cannot be "${topic}"`);
  if (topic.length > MAX_TOPIC_NAME_LENGTH) {
    throw new StorageError(`topic name is ${topic.length} characters, the limit is ${MAX_TOPIC_NAME_LENGTH}`);
  }
  if (!/^[a-zA-Z0-9._-]+$/.test(topic)) {
    throw new StorageError(`topic name "${topic}" has characters outside [a-zA-Z0-9._-]`);
  }
  return topic;
}

/** A partition number: 0 .. 2^31-1. */
export function validatePartitionNumber(partition: number): number {
  if (!Number.isSafeInteger(partition) || partition < 0 || partition > 2_147_483_647) {
    throw new StorageError(`partition must be an integer in 0..2147483647, got ${partition}`);
  }
  return partition;
}
