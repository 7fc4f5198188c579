import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StorageError } from '../errors.js';
import { fsyncDirectory } from '../io/fsync.js';
import { io, ioError, NO_FOLLOW, openRegular } from '../io/io.js';

/**
 * A partition's topic id, kept where Kafka keeps it: `partition.metadata` in the partition directory
 * (Kafka's `PartitionMetadataFile`). The text is `version: 0\ntopic_id: <id>` with no newline after it
 * (`PartitionMetadata.encode`), the id in Kafka's form (`Uuid.toString`: 16 bytes, base64url, no padding).
 * klog's own code carries ids as the wire codecs do, 8-4-4-4-12 hex.
 */
export const PARTITION_METADATA_FILE = 'partition.metadata';

/** Kafka's `Uuid.ZERO_UUID`: no topic id (refused in the file, answered for errors). */
export const ZERO_TOPIC_ID = '00000000-0000-0000-0000-000000000000';
/** Kafka's `Uuid.ONE_UUID` (the metadata topic's id): never drawn for a topic. */
const ONE_TOPIC_ID = '00000000-0000-0000-0000-000000000001';

const HEX_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KAFKA_UUID = /^[A-Za-z0-9_-]{22}$/;

/** Hex (8-4-4-4-12) to Kafka's `Uuid.toString` form (22 characters of base64url). */
export function uuidToKafkaString(hex: string): string {
  if (!HEX_UUID.test(hex)) throw new StorageError('INVALID_REQUEST', `${JSON.stringify(hex)} is not a UUID`);
  return Buffer.from(hex.replace(/-/g, ''), 'hex').toString('base64url');
}

/** Kafka's `Uuid.fromString`: 22 characters of base64url to hex; undefined when it is not one. */
export function kafkaStringToUuid(text: string): string | undefined {
  if (!KAFKA_UUID.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  // 22 characters hold 132 bits: the last 4 must be 0, or the text is not the form of any 16 bytes.
  if (bytes.length !== 16 || bytes.toString('base64url') !== text) return undefined;
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * A new topic id, drawn as Kafka's `Uuid.randomUuid` draws one: a random (v4) UUID, again while it is the
 * zero or the metadata topic's id or its string form starts with `-` (so a command line never reads it
 * as a flag).
 */
export function newTopicId(): string {
  for (;;) {
    const b = randomBytes(16);
    b[6] = (b[6]! & 0x0f) | 0x40;
    b[8] = (b[8]! & 0x3f) | 0x80;
    const h = b.toString('hex');
    const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    if (id !== ZERO_TOPIC_ID && id !== ONE_TOPIC_ID && !uuidToKafkaString(id).startsWith('-')) return id;
  }
}

/** The file's bytes for a topic id: exactly Kafka's, 43 bytes, no newline at the end. */
export function encodePartitionMetadata(idHex: string): string {
  return `version: 0\ntopic_id: ${uuidToKafkaString(idHex)}`;
}

/**
 * The topic id kept in `dir`'s `partition.metadata`, as hex; undefined when there is no such file. Read as
 * Kafka's `PartitionMetadataReadBuffer` reads it: two lines split on `:` and spaces, any version from 0,
 * a trailing newline or not; the zero id or anything else is a StorageError `KAFKA_STORAGE_ERROR` naming
 * the file.
 */
export function readPartitionMetadata(dir: string): string | undefined {
  const path = join(dir, PARTITION_METADATA_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw ioError('read partition metadata', path, error);
  }
  const match = /^version:\s+(\d+)\ntopic_id:\s+(\S+)\n?$/.exec(text);
  const id = match === null ? undefined : kafkaStringToUuid(match[2]!);
  if (id === undefined || id === ZERO_TOPIC_ID) {
    throw new StorageError(
      'KAFKA_STORAGE_ERROR',
      `${path} does not hold a topic id: ${JSON.stringify(text.slice(0, 60))}`,
      { path },
    );
  }
  return id;
}

/**
 * Writes the topic id into `dir` as Kafka's `PartitionMetadataFile.maybeFlush` does, so that a crash
 * leaves the old file or the new one: `.tmp`, write, fsync, rename, fsync the directory.
 */
export function writePartitionMetadata(dir: string, idHex: string): void {
  const path = join(dir, PARTITION_METADATA_FILE);
  const tmp = `${path}.tmp`;
  const text = encodePartitionMetadata(idHex);
  const fd = openRegular(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NO_FOLLOW,
    'partition metadata file',
  );
  try {
    io('write partition metadata', tmp, () => writeSync(fd, text));
    io('fsync partition metadata', tmp, () => fsyncSync(fd));
  } finally {
    closeSync(fd);
  }
  io('rename partition metadata', path, () => renameSync(tmp, path));
  fsyncDirectory(dir);
}
