import { StorageError } from '../errors.js';

/** Kafka's `Topic.MAX_NAME_LENGTH`. */
export const MAX_TOPIC_NAME_LENGTH = 249;

const LEGAL_TOPIC_NAME = /^[a-zA-Z0-9._-]+$/;

/**
 * A name as it can be shown in a one-line message: quoted, with control characters,
 * quotes and anything outside printable ASCII escaped (so a NUL, a newline or a
 * Unicode look-alike is visible as what it is), and cut if very long.
 */
function shown(name: string): string {
  const cut = name.length > 60 ? `${name.slice(0, 60)}…` : name;
  return JSON.stringify(cut).replace(/[^\x20-\x7e]/gu, (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * Kafka's `Topic.validate`: ASCII letters, digits, `.`, `_` and `-`, 1 to 249
 * characters, and not `.` or `..`. No separator (`/`, `\`), no NUL, no Unicode
 * look-alike and no absolute path can pass, so `<topic>-<partition>` is always one
 * new name inside the data directory. It is checked before anything touches the disk.
 */
export function validateTopicName(topic: string): string {
  if (typeof topic !== 'string')
    throw new StorageError('INVALID_TOPIC_EXCEPTION', `topic name must be a string, got ${typeof topic}`);
  if (topic.length === 0) throw new StorageError('INVALID_TOPIC_EXCEPTION', 'topic name is empty');
  if (topic === '.' || topic === '..')
    throw new StorageError('INVALID_TOPIC_EXCEPTION', `topic name cannot be "${topic}"`);
  if (topic.length > MAX_TOPIC_NAME_LENGTH) {
    throw new StorageError(
      'INVALID_TOPIC_EXCEPTION',
      `topic name ${shown(topic)} is ${topic.length} characters, the limit is ${MAX_TOPIC_NAME_LENGTH}`,
    );
  }
  if (!LEGAL_TOPIC_NAME.test(topic)) {
    throw new StorageError(
      'INVALID_TOPIC_EXCEPTION',
      `topic name ${shown(topic)} has characters outside [a-zA-Z0-9._-]`,
    );
  }
  return topic;
}

/** The most partitions a topic may have here: its directories' names must stay within a filesystem's limits. */
export const MAX_PARTITIONS = 100_000;

/** A partition number: 0 .. 2^31-1. */
export function validatePartitionNumber(partition: number): number {
  if (!Number.isSafeInteger(partition) || partition < 0 || partition > 2_147_483_647) {
    throw new StorageError(
      'INVALID_PARTITIONS',
      `partition must be an integer in 0..2147483647, got ${partition}`,
    );
  }
  return partition;
}

/** The longest file name most filesystems allow (ext4, XFS, APFS, NTFS: 255). */
const MAX_FILE_NAME_BYTES = 255;

/** The partition's directory name inside the data directory, `<topic>-<partition>`, both validated first. */
export function partitionDirName(topic: string, partition: number): string {
  const name = `${validateTopicName(topic)}-${validatePartitionNumber(partition)}`;
  // 249 characters leave room for `-<partition>` only up to 5 digits; a filesystem refuses longer names.
  if (name.length > MAX_FILE_NAME_BYTES) {
    throw new StorageError(
      'INVALID_TOPIC_EXCEPTION',
      `partition directory name is ${name.length} characters (topic ${topic.length} + "-${partition}"), ` +
        `longer than the ${MAX_FILE_NAME_BYTES} a filesystem allows`,
    );
  }
  return name;
}
