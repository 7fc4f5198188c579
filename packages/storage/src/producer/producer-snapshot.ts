import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { BatchMetadata, ProducerState, toProducerEpoch, toProducerId, toSequence } from '@klog/core';
import { DecodeError, namingFile } from '../errors.js';
import { crc32c } from '../format/crc32c.js';
import { readInt16, readInt32, readInt64, readUint32, writeInt64 } from '../format/varint.js';
import { fsyncDirectory } from '../io/fsync.js';
import { io } from '../io/io.js';
import { writeFileWhole } from '../io/write-file-whole.js';

/**
 * Producer snapshots in Kafka's own format (`ProducerStateManager.writeSnapshot`,
 * schema `ProducerSnapshot.json`, version 1), one `<20-digit offset>.snapshot` file
 * per snapshot, holding the producer state as of that offset:
 *
 *   version i16 = 1 · crc u32 (CRC-32C of everything after it) · entry count i32 ·
 *   entries: producerId i64 · epoch i16 · lastSequence i32 · lastOffset i64 ·
 *            offsetDelta i32 · timestamp i64 · coordinatorEpoch i32 · currentTxnFirstOffset i64
 *
 * Like Kafka's, a snapshot keeps only each producer's last batch: after a restart that
 * loads one, a producer's window holds that batch plus whatever the log replays after
 * the snapshot's offset. Kafka narrows too; it just narrows to one, not to what the
 * active segment holds.
 */

export const SNAPSHOT_SUFFIX = '.snapshot';
const VERSION = 1;
const VERSION_FIELD = 0;
const CRC_FIELD = VERSION_FIELD + 2;
const ENTRIES_FIELD = CRC_FIELD + 4;
/** Where each field of an entry starts, from the schema's sizes in order (as record-batch.ts names a batch header's). */
const ENTRY_FIELD = {
  producerId: 0,
  epoch: 8,
  lastSequence: 8 + 2,
  lastOffset: 8 + 2 + 4,
  offsetDelta: 8 + 2 + 4 + 8,
  timestamp: 8 + 2 + 4 + 8 + 4,
  coordinatorEpoch: 8 + 2 + 4 + 8 + 4 + 8,
  currentTxnFirstOffset: 8 + 2 + 4 + 8 + 4 + 8 + 4,
} as const;
const ENTRY_BYTES = ENTRY_FIELD.currentTxnFirstOffset + 8;
const NO_COORDINATOR_EPOCH = -1;
const NO_TXN = -1;

export function snapshotFileName(offset: number): string {
  return String(offset).padStart(20, '0') + SNAPSHOT_SUFFIX;
}

/** The snapshot bytes of `state`, producers in ascending id order. */
export function encodeProducerSnapshot(state: ProducerState): Buffer {
  const ids = state.producerIds();
  const bytes = Buffer.alloc(ENTRIES_FIELD + 4 + ids.length * ENTRY_BYTES);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  view.setInt16(VERSION_FIELD, VERSION);
  view.setInt32(ENTRIES_FIELD, ids.length);
  let at = ENTRIES_FIELD + 4;
  for (const id of ids) {
    const entry = state.get(id)!;
    const last = entry.batches.at(-1);
    writeInt64(view, at + ENTRY_FIELD.producerId, id);
    view.setInt16(at + ENTRY_FIELD.epoch, entry.producerEpoch);
    view.setInt32(at + ENTRY_FIELD.lastSequence, last?.lastSeq ?? -1);
    writeInt64(view, at + ENTRY_FIELD.lastOffset, last?.lastOffset ?? -1);
    view.setInt32(at + ENTRY_FIELD.offsetDelta, last?.offsetDelta ?? 0);
    writeInt64(view, at + ENTRY_FIELD.timestamp, entry.lastTimestamp);
    view.setInt32(at + ENTRY_FIELD.coordinatorEpoch, NO_COORDINATOR_EPOCH);
    writeInt64(view, at + ENTRY_FIELD.currentTxnFirstOffset, NO_TXN);
    at += ENTRY_BYTES;
  }
  view.setUint32(CRC_FIELD, crc32c(bytes.subarray(ENTRIES_FIELD)));
  return bytes;
}

/** The producer state a snapshot holds; a DecodeError (naming `file`) if it is not a valid one. */
export function decodeProducerSnapshot(bytes: Uint8Array, file?: string): ProducerState {
  const fail = (field: string, offset: number, reason: string) =>
    new DecodeError(field, offset, reason, file);
  if (bytes.length < ENTRIES_FIELD + 4) throw fail('version', 0, `truncated: ${bytes.length} bytes`);
  const version = readInt16(bytes, VERSION_FIELD);
  if (version !== VERSION) throw fail('version', 0, `snapshot version ${version} is not 1`);
  const stored = readUint32(bytes, CRC_FIELD);
  const computed = crc32c(bytes.subarray(ENTRIES_FIELD));
  if (stored !== computed) {
    throw fail('crc', CRC_FIELD, `stored ${stored} but the bytes give ${computed}`);
  }
  const count = readInt32(bytes, ENTRIES_FIELD);
  if (count < 0 || ENTRIES_FIELD + 4 + count * ENTRY_BYTES !== bytes.length) {
    throw fail('producerEntries', ENTRIES_FIELD, `${count} entries do not fill ${bytes.length} bytes`);
  }
  const state = new ProducerState();
  let at = ENTRIES_FIELD + 4;
  try {
    for (let i = 0; i < count; i++, at += ENTRY_BYTES) {
      const entry = state.entry(toProducerId(readInt64(bytes, at + ENTRY_FIELD.producerId, 'producerId', 0)));
      const epoch = toProducerEpoch(readInt16(bytes, at + ENTRY_FIELD.epoch));
      const lastOffset = readInt64(bytes, at + ENTRY_FIELD.lastOffset, 'lastOffset', 0);
      if (lastOffset < 0) {
        entry.maybeUpdateProducerEpoch(epoch);
        continue;
      }
      const batch = new BatchMetadata(
        toSequence(readInt32(bytes, at + ENTRY_FIELD.lastSequence)),
        lastOffset,
        readInt32(bytes, at + ENTRY_FIELD.offsetDelta),
        readInt64(bytes, at + ENTRY_FIELD.timestamp, 'timestamp', 0),
      );
      entry.addBatch(epoch, batch);
    }
  } catch (error) {
    if (error instanceof DecodeError) throw namingFile(error, file);
    throw fail(`producerEntries[${(at - ENTRIES_FIELD - 4) / ENTRY_BYTES}]`, at, (error as Error).message);
  }
  return state;
}

/**
 * Write `state` as the snapshot at `offset` in `dir`: under a temporary name, fsynced,
 * renamed, the directory fsynced (a crash leaves the previous snapshots, never half of
 * one). Only the newest `keep` snapshots are kept.
 */
export function writeProducerSnapshot(dir: string, offset: number, state: ProducerState, keep = 2): string {
  const path = join(dir, snapshotFileName(offset));
  writeFileWhole(path, encodeProducerSnapshot(state), 'write producer snapshot', 'producer snapshot');
  for (const old of snapshotOffsets(dir).slice(0, -keep)) {
    io('remove old producer snapshot', join(dir, snapshotFileName(old)), () =>
      unlinkSync(join(dir, snapshotFileName(old))),
    );
  }
  fsyncDirectory(dir);
  return path;
}

/** Offsets of the snapshot files in `dir`, ascending. */
export function snapshotOffsets(dir: string): number[] {
  const names = io('list partition directory', dir, () => readdirSync(dir));
  return names
    .filter((n) => /^\d{20}\.snapshot$/.test(n))
    .map((n) => Number(n.slice(0, 20)))
    .filter((n) => Number.isSafeInteger(n))
    .sort((a, b) => a - b);
}

/** A snapshot found on open, or why one could not be used. */
export interface LoadedSnapshot {
  readonly offset: number;
  readonly state: ProducerState;
  readonly path: string;
}

/**
 * The newest valid snapshot at or below `logEndOffset` (Kafka's `loadFromSnapshot`).
 * Snapshots past the log end offset (the log was cut back by recovery) and snapshots
 * that fail their CRC are passed to `onSkip` and left where they are.
 */
export function loadLatestSnapshot(
  dir: string,
  logEndOffset: number,
  onSkip: (path: string, reason: string) => void,
): LoadedSnapshot | undefined {
  const offsets = snapshotOffsets(dir).reverse();
  for (const offset of offsets) {
    const path = join(dir, snapshotFileName(offset));
    if (offset > logEndOffset) {
      onSkip(path, `snapshot at offset ${offset} is past the log end offset ${logEndOffset}`);
      continue;
    }
    try {
      const bytes = io('read producer snapshot', path, () => readFileSync(path));
      return { offset, state: decodeProducerSnapshot(bytes, path), path };
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      onSkip(path, error.message);
    }
  }
  return undefined;
}
