import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  appendRecords,
  buildPlainBatch,
  DEFAULT_LOG_CONFIG,
  Log,
  MAX_READABLE_BATCH_BYTES,
  Partition,
  StorageError,
} from '../../src/internals.js';
import { NOW, tempDir, thrown, writableLog } from '../helpers.js';

/**
 * One rule for batch sizes (record-batch.ts, MAX_READABLE_BATCH_BYTES): the setting
 * limits what an append accepts; every reader of what is on disk takes up to the
 * one ceiling, so a setting can never make klog cut or refuse what it once accepted.
 */
describe('the batch size limit: a setting for appends, one ceiling for readers', () => {
  it('a log reopened with a smaller maxBatchBytes keeps and serves its larger batches', () => {
    const dir = tempDir();
    const big = { key: null, value: Buffer.alloc(2 * 1024 * 1024, 0x62) };
    const p = Partition.open(dir, 'big', 0, { maxBatchBytes: 4 * 1024 * 1024 });
    appendRecords(p, [big], NOW);
    appendRecords(p, [{ key: null, value: Buffer.from('small') }], NOW);
    p.close();
    // The default limit (1 MiB, Kafka's message.max.bytes) is below the first batch.
    expect(DEFAULT_LOG_CONFIG.maxBatchBytes).toBeLessThan(2 * 1024 * 1024);
    const again = Partition.open(dir, 'big', 0);
    try {
      expect(again.recovery).toBeUndefined();
      expect(again.log.logEndOffset).toBe(2);
      expect(
        again.log.readCheckedBatches(0, 8 * 1024 * 1024).map((b) => b.records[0]!.value?.length),
      ).toEqual([2 * 1024 * 1024, 5]);
      expect(readdirSync(`${dir}/big-0`).filter((n) => n.includes('dropped'))).toEqual([]);
      // The setting still limits what is accepted.
      expect(() =>
        writableLog(again).append({ origin: 'raw', bytes: buildPlainBatch([big], 0, NOW) }),
      ).toThrow(/exceeds the limit of 1048588/);
    } finally {
      again.close();
    }
  });

  it('a setting above the readers’ ceiling is refused: what is accepted must be readable', () => {
    const error = thrown(StorageError, () =>
      Log.open(tempDir(), { maxBatchBytes: MAX_READABLE_BATCH_BYTES + 1 }),
    );
    expect(error.message).toMatch(/max batch bytes must be an integer in 61\.\.67108864/);
    Log.open(tempDir(), { maxBatchBytes: MAX_READABLE_BATCH_BYTES }).close();
  });
});
