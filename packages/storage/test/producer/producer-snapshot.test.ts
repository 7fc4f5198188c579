import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchMetadata, ProducerState, toProducerEpoch, toProducerId, toSequence } from '@klog/core';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../../src/format/crc32c.js';
import {
  DecodeError,
  decodeProducerSnapshot,
  encodeProducerSnapshot,
  loadLatestSnapshot,
  StorageError,
  snapshotFileName,
  writeProducerSnapshot,
} from '../../src/internals.js';
import { NOW, tempDir, thrown } from '../helpers.js';

// Kafka's ProducerSnapshot.json v1: version i16, crc u32, count i32, then 46-byte entries.
const FIRST_ENTRY = 10;
const ENTRY = 46;

/** One producer (id 5, epoch 2) whose last batch ends at `lastOffset`. */
function oneProducer(lastOffset: number): ProducerState {
  const state = new ProducerState();
  state
    .entry(toProducerId(5))
    .addBatch(toProducerEpoch(2), new BatchMetadata(toSequence(7), lastOffset, 0, NOW));
  return state;
}

/** `bytes` with `edit` applied and the CRC made right again: only the field under test is wrong. */
function edited(bytes: Buffer, edit: (b: Buffer) => void): Buffer {
  const b = Buffer.from(bytes);
  edit(b);
  b.writeUInt32BE(crc32c(b.subarray(6)), 2);
  return b;
}

const lastOffsets = (state: ProducerState, pid: number) =>
  state.get(pid as never)?.batches.map((b) => b.lastOffset);

describe('producer snapshot bytes (ProducerStateManager.writeSnapshot / readSnapshot)', () => {
  it('no producers: the 10-byte header alone, read back as an empty state', () => {
    const bytes = encodeProducerSnapshot(new ProducerState());
    expect(bytes.length).toBe(10);
    expect(decodeProducerSnapshot(bytes, 'f').producerIds()).toEqual([]);
  });

  it('a last batch at offset 0 is a batch: only a negative offset means none', () => {
    const state = decodeProducerSnapshot(encodeProducerSnapshot(oneProducer(0)), 'f');
    expect(lastOffsets(state, 5)).toEqual([0]);
  });

  it('a producer with an epoch and no batch is written with sequence -1 and offset -1, and read back so', () => {
    const state = new ProducerState();
    state.entry(toProducerId(9)).maybeUpdateProducerEpoch(toProducerEpoch(3));
    const bytes = encodeProducerSnapshot(state);
    expect(bytes.readInt16BE(FIRST_ENTRY + 8)).toBe(3);
    expect(bytes.readInt32BE(FIRST_ENTRY + 10)).toBe(-1); // RecordBatch.NO_SEQUENCE
    expect(bytes.readBigInt64BE(FIRST_ENTRY + 14)).toBe(-1n);
    const back = decodeProducerSnapshot(bytes, 'f');
    expect(back.get(9 as never)?.producerEpoch).toBe(3);
    expect(lastOffsets(back, 9)).toEqual([]);
  });

  it('names the entry field that is not a safe integer, and the file', () => {
    const good = encodeProducerSnapshot(oneProducer(4));
    const unsafe = (at: number) => edited(good, (b) => b.writeBigInt64BE(0x7fffffffffffffffn, at));
    const failure = (bytes: Buffer) => thrown(DecodeError, () => decodeProducerSnapshot(bytes, 'x.snapshot'));
    expect(failure(unsafe(FIRST_ENTRY))).toMatchObject({ field: 'producerId', file: 'x.snapshot' });
    expect(failure(unsafe(FIRST_ENTRY + 14))).toMatchObject({ field: 'lastOffset', file: 'x.snapshot' });
    expect(failure(unsafe(FIRST_ENTRY + 26))).toMatchObject({ field: 'timestamp', file: 'x.snapshot' });
  });

  it('bytes given without a file: the error names no file (no empty " of " in its message)', () => {
    const good = encodeProducerSnapshot(oneProducer(4));
    const bytes = edited(good, (b) => b.writeBigInt64BE(0x7fffffffffffffffn, FIRST_ENTRY));
    const error = thrown(DecodeError, () => decodeProducerSnapshot(bytes));
    expect(error.file).toBeUndefined();
    expect(error.message).toMatch(new RegExp(`^producerId at byte ${FIRST_ENTRY}: `));
  });

  it('names by index the entry whose value no producer has (a negative epoch)', () => {
    const two = oneProducer(4);
    two.entry(toProducerId(6)).addBatch(toProducerEpoch(0), new BatchMetadata(toSequence(0), 5, 0, NOW));
    const bytes = edited(encodeProducerSnapshot(two), (b) => b.writeInt16BE(-5, FIRST_ENTRY + ENTRY + 8));
    expect(thrown(DecodeError, () => decodeProducerSnapshot(bytes, 'x.snapshot'))).toMatchObject({
      field: 'producerEntries[1]',
      offset: FIRST_ENTRY + ENTRY,
    });
  });
});

describe('loadLatestSnapshot: the snapshot files of a partition directory', () => {
  it('takes the newest by number (10 after 9), and ignores names that are not 20 digits + .snapshot', () => {
    const dir = tempDir();
    for (const offset of [9, 2, 10])
      writeFileSync(join(dir, snapshotFileName(offset)), encodeProducerSnapshot(oneProducer(offset - 1)));
    // 21 digits (its first 20 would read as 50), and 20 digits past 2^53: neither is a snapshot.
    writeFileSync(join(dir, '000000000000000000500.snapshot'), 'not one');
    writeFileSync(join(dir, '99999999999999999999.snapshot'), 'not one');
    const skipped: string[] = [];
    const loaded = loadLatestSnapshot(dir, 100, (path) => skipped.push(path));
    expect(loaded?.offset).toBe(10);
    expect(lastOffsets(loaded!.state, 5)).toEqual([9]);
    expect(skipped).toEqual([]);
  });

  it('names the step and the directory when it cannot list it', () => {
    const dir = join(tempDir(), 'gone');
    expect(thrown(StorageError, () => loadLatestSnapshot(dir, 0, () => {}))).toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
      message: expect.stringMatching(new RegExp(`^list partition directory ${dir}: ENOENT`)),
    });
  });
});

describe('writeProducerSnapshot: temporary file, rename, the two newest kept', () => {
  it('replaces a temporary file a crash left behind', () => {
    const dir = tempDir();
    writeFileSync(join(dir, `${snapshotFileName(3)}.tmp`), 'half of an old write');
    writeProducerSnapshot(dir, 3, oneProducer(2));
    expect(readdirSync(dir)).toEqual([snapshotFileName(3)]);
    expect(readFileSync(join(dir, snapshotFileName(3)))).toEqual(encodeProducerSnapshot(oneProducer(2)));
  });

  it('keeps the two newest by number and leaves no file open', () => {
    const dir = tempDir();
    const openFiles = () => readdirSync('/proc/self/fd').length;
    const before = openFiles();
    for (const offset of [10, 9, 20]) writeProducerSnapshot(dir, offset, oneProducer(offset - 1));
    expect(openFiles()).toBe(before);
    expect(readdirSync(dir).sort()).toEqual([snapshotFileName(10), snapshotFileName(20)]);
  });

  it('names the step and the path when the snapshot cannot be written', () => {
    const dir = tempDir();
    // A directory where the temporary file goes: it cannot be created.
    mkdirSync(join(dir, `${snapshotFileName(3)}.tmp`));
    expect(thrown(StorageError, () => writeProducerSnapshot(dir, 3, oneProducer(2))).message).toMatch(
      /^open producer snapshot .*00000000000000000003\.snapshot\.tmp: EEXIST/,
    );
    // A directory, not empty, where the snapshot goes: the rename fails.
    mkdirSync(join(dir, snapshotFileName(4), 'x'), { recursive: true });
    expect(thrown(StorageError, () => writeProducerSnapshot(dir, 4, oneProducer(2))).message).toMatch(
      /^write producer snapshot .*00000000000000000004\.snapshot: E/,
    );
  });

  it('names the step and the path when an old snapshot cannot be removed', () => {
    const dir = tempDir();
    mkdirSync(join(dir, snapshotFileName(1), 'x'), { recursive: true });
    writeProducerSnapshot(dir, 2, oneProducer(1));
    expect(thrown(StorageError, () => writeProducerSnapshot(dir, 3, oneProducer(2))).message).toMatch(
      /^remove old producer snapshot .*00000000000000000001\.snapshot: E/,
    );
  });
});
