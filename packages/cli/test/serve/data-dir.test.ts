import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Partition, rebuildProducerState } from '@klog/storage/internals';
import { afterAll, describe, expect, it } from 'vitest';
import { klog } from '../run-klog.js';

const scratch = mkdtempSync(join(tmpdir(), 'klog-cli-data-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('--data-dir keeps the partitions for inspection', () => {
  it('leaves real segment files that @klog/storage opens again', () => {
    const dir = join(scratch, 'run');
    const run = klog(['idem-demo', '--resend', '--now-ms', '1', '--data-dir', dir]);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/partitions are in/);
    expect(readdirSync(dir).sort()).toEqual(['.lock', 'narrow-0', 'orders-0']);
    expect(readdirSync(join(dir, 'orders-0')).sort()).toEqual([
      '.lock',
      '00000000000000000000.index',
      '00000000000000000000.log',
      '00000000000000000000.timeindex',
    ]);
    expect(readdirSync(join(dir, 'narrow-0')).filter((n) => n.endsWith('.log'))).toHaveLength(8);
    const orders = Partition.open(dir, 'orders', 0);
    expect(orders.logEndOffset).toBe(18);
    expect(rebuildProducerState(orders.log).producerIds()).toEqual([1000, 1001]);
    orders.close();
  });

  it('its stdout is the same as a run in a temporary directory', () => {
    const args = ['idem-demo', '--resend', '--now-ms', '1'];
    expect(klog([...args, '--data-dir', join(scratch, 'again')]).stdout).toBe(klog(args).stdout);
  });
});
