import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../src/errors.js';
import { appendRecords, LogManager } from '../../src/index.js';
import {
  kafkaStringToUuid,
  newTopicId,
  PARTITION_METADATA_FILE,
  readPartitionMetadata,
  uuidToKafkaString,
  writePartitionMetadata,
} from '../../src/internals.js';
import { NOW, records, tempDir, thrown } from '../helpers.js';

/**
 * Issue 41: a topic's id is kept as Kafka keeps it, in each partition directory's `partition.metadata`
 * (Kafka's `PartitionMetadataFile`): the exact bytes, kept over a restart, given to a data directory from
 * before ids, refused when two partitions disagree, and new when a topic is made again under its name.
 */
const fileOf = (dataDir: string, dir: string) => join(dataDir, dir, PARTITION_METADATA_FILE);
const HEX = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('partition.metadata: the file', () => {
  it("holds exactly Kafka's 43 bytes, no newline at the end, and reads back with or without one", () => {
    const dir = tempDir();
    const id = '0b6e8a1c-2f3d-4e5f-8a9b-0c1d2e3f4a5b';
    writePartitionMetadata(dir, id);
    const bytes = readFileSync(join(dir, PARTITION_METADATA_FILE));
    expect(bytes.length).toBe(43);
    expect(bytes.toString('latin1')).toBe(`version: 0\ntopic_id: ${uuidToKafkaString(id)}`);
    expect(uuidToKafkaString(id)).toBe('C26KHC89Tl-KmwwdLj9KWw');
    expect(readdirSync(dir)).toEqual([PARTITION_METADATA_FILE]);
    expect(readPartitionMetadata(dir)).toBe(id);
    writeFileSync(join(dir, PARTITION_METADATA_FILE), `version: 0\ntopic_id: ${uuidToKafkaString(id)}\n`);
    expect(readPartitionMetadata(dir)).toBe(id);
    expect(readPartitionMetadata(tempDir())).toBeUndefined();
  });

  it('refuses the zero id, an unknown line and a malformed id, naming the file', () => {
    for (const text of [
      'version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA',
      'version: 0\ntopic: C26KHC89Tl-KmwwdLj9KWw',
      'version: 0\ntopic_id: C26KHC89Tl-KmwwdLj9KW',
      '',
    ]) {
      const dir = tempDir();
      writeFileSync(join(dir, PARTITION_METADATA_FILE), text);
      const error = thrown(StorageError, () => readPartitionMetadata(dir));
      expect(error.code).toBe('KAFKA_STORAGE_ERROR');
      expect(error.path).toBe(join(dir, PARTITION_METADATA_FILE));
    }
  });

  it("draws ids as Kafka's Uuid.randomUuid: never zero, never starting with '-', hex both ways", () => {
    for (let i = 0; i < 2000; i++) {
      const id = newTopicId();
      expect(id).toMatch(HEX);
      const text = uuidToKafkaString(id);
      expect(text).toHaveLength(22);
      expect(text.startsWith('-')).toBe(false);
      expect(kafkaStringToUuid(text)).toBe(id);
    }
  });
});

describe('LogManager: topic ids', () => {
  it('a created topic has one id on every partition, kept over a restart and after more partitions', () => {
    const dataDir = tempDir();
    let manager = LogManager.open(dataDir);
    const version = manager.topicsVersion;
    manager.createTopic('orders', 2);
    expect(manager.topicsVersion).toBe(version + 1);
    const id = manager.topicId('orders')!;
    expect(id).toMatch(HEX);
    expect(manager.topicName(id)).toBe('orders');
    appendRecords(manager.partition('orders', 1)!, records(3), NOW);
    manager.addPartitions('orders', 3);
    expect(manager.topicsVersion).toBe(version + 2);
    manager.close();
    const expected = `version: 0\ntopic_id: ${uuidToKafkaString(id)}`;
    for (const p of [0, 1, 2]) expect(readFileSync(fileOf(dataDir, `orders-${p}`), 'latin1')).toBe(expected);
    manager = LogManager.open(dataDir);
    try {
      expect(manager.topicId('orders')).toBe(id);
      expect(manager.topicName(id)).toBe('orders');
      // The log opens past the file: it is no segment.
      expect(manager.partition('orders', 1)!.logEndOffset).toBe(3);
    } finally {
      manager.close();
    }
  });

  it('a data directory from before ids gets one per topic on first start, the same on every partition', () => {
    const dataDir = tempDir();
    let manager = LogManager.open(dataDir);
    manager.createTopic('a', 3);
    manager.createTopic('b', 1);
    manager.close();
    for (const dir of ['a-0', 'a-1', 'a-2', 'b-0']) unlinkSync(fileOf(dataDir, dir));
    manager = LogManager.open(dataDir);
    const a = manager.topicId('a')!;
    const b = manager.topicId('b')!;
    manager.close();
    expect(a).not.toBe(b);
    for (const dir of ['a-0', 'a-1', 'a-2']) expect(readPartitionMetadata(join(dataDir, dir))).toBe(a);
    expect(readPartitionMetadata(join(dataDir, 'b-0'))).toBe(b);
    // One partition's file lost: it gets the topic's id back.
    unlinkSync(fileOf(dataDir, 'a-1'));
    manager = LogManager.open(dataDir);
    manager.close();
    expect(readPartitionMetadata(join(dataDir, 'a-1'))).toBe(a);
  });

  it('two partitions of one topic holding different ids are refused, naming both files', () => {
    const dataDir = tempDir();
    const manager = LogManager.open(dataDir);
    manager.createTopic('t', 2);
    manager.close();
    writePartitionMetadata(join(dataDir, 't-1'), newTopicId());
    const error = thrown(StorageError, () => LogManager.open(dataDir));
    expect(error.code).toBe('KAFKA_STORAGE_ERROR');
    expect(error.message).toContain(fileOf(dataDir, 't-0'));
    expect(error.message).toContain(fileOf(dataDir, 't-1'));
    // The refusal released the directory's lock: once one file goes, the other's id is the topic's.
    unlinkSync(fileOf(dataDir, 't-1'));
    const reopened = LogManager.open(dataDir);
    reopened.close();
    expect(readPartitionMetadata(join(dataDir, 't-1'))).toBe(readPartitionMetadata(join(dataDir, 't-0')));
  });

  it('a topic deleted and made again under its name gets a new id; the old one names nothing', () => {
    const dataDir = tempDir();
    const manager = LogManager.open(dataDir);
    try {
      manager.createTopic('t', 1);
      const first = manager.topicId('t')!;
      const version = manager.topicsVersion;
      manager.deleteTopic('t');
      expect(manager.topicsVersion).toBe(version + 1);
      expect(manager.topicId('t')).toBeUndefined();
      expect(manager.topicName(first)).toBeUndefined();
      manager.createTopic('t', 1);
      expect(manager.topicId('t')).not.toBe(first);
      expect(manager.topicName(manager.topicId('t')!)).toBe('t');
    } finally {
      manager.close();
    }
  });

  it('a hidden .tmp left by a crash in the middle of a write does not stop the partition opening', () => {
    const dataDir = tempDir();
    let manager = LogManager.open(dataDir);
    manager.createTopic('t', 1);
    const id = manager.topicId('t');
    manager.close();
    mkdirSync(join(dataDir, 'scratch'), { recursive: true });
    writeFileSync(`${fileOf(dataDir, 't-0')}.tmp`, 'version: 0\ntopic_id: ');
    manager = LogManager.open(dataDir, { ownEntries: ['scratch'] });
    try {
      expect(manager.topicId('t')).toBe(id);
      appendRecords(manager.partition('t', 0)!, records(1), NOW);
      expect(manager.partition('t', 0)!.logEndOffset).toBe(1);
    } finally {
      manager.close();
    }
  });
});
