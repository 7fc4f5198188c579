import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncDirectory } from '../../src/log/log-port.js';
import {
  PRODUCER_ID_FILE,
  ProducerIdFileError,
  ProducerIdManager,
} from '../../src/state/producer-id-manager.js';
import { startBroker, tempDir } from '../support/broker.js';
import { kafkajs, RawClient } from '../support/raw-client.js';

describe('producer ids: a block reserved on disk before any id in it is handed out', () => {
  it('ids are 0, 1, 2…; the file already says the block ends at 1000 when the first is handed out', () => {
    const d = tempDir();
    try {
      const seen: string[] = [];
      const ids = new ProducerIdManager(d.dir, (dir) => {
        seen.push(readFileSync(join(dir, PRODUCER_ID_FILE), 'utf8'));
        syncDirectory(dir);
      });
      expect(ids.allocate()).toBe(0);
      expect(seen).toEqual(['next-block-start=1000\n']);
      for (let i = 1; i < 1000; i++) expect(ids.allocate()).toBe(i);
      expect(seen).toHaveLength(1);
      expect(ids.allocate()).toBe(1000);
      expect(seen).toEqual(['next-block-start=1000\n', 'next-block-start=2000\n']);
    } finally {
      d.remove();
    }
  });

  it('after a crash (no close) the next manager starts at the next block: no id is handed out twice', () => {
    const d = tempDir();
    try {
      const first = new ProducerIdManager(d.dir, syncDirectory);
      const before = [first.allocate(), first.allocate(), first.allocate()];
      const second = new ProducerIdManager(d.dir, syncDirectory);
      const after = second.allocate();
      expect(before).toEqual([0, 1, 2]);
      expect(after).toBe(1000);
    } finally {
      d.remove();
    }
  });

  it('a damaged file stops the broker with a message, instead of reusing ids', () => {
    const d = tempDir();
    try {
      writeFileSync(join(d.dir, PRODUCER_ID_FILE), 'garbage');
      expect(() => new ProducerIdManager(d.dir, syncDirectory)).toThrow(ProducerIdFileError);
      expect(() => new ProducerIdManager(d.dir, syncDirectory)).toThrow(/restore it rather than delete it/);
    } finally {
      d.remove();
    }
  });

  it('InitProducerId through the broker: a fresh id at epoch 0 each time, and fresh ones after a restart', async () => {
    let b = await startBroker({});
    const d = b.dataDir;
    const ask = async (version: number, port: number, transactionalId: string | null = null) => {
      const c = await RawClient.connect(port);
      const req = await kafkajs('initProducerId', version, { transactionalId, transactionTimeout: 30000 });
      c.send(req.frame);
      const { data } = await req.decode(await c.next());
      c.close();
      return data as { errorCode: number; producerId: string; producerEpoch: number };
    };
    try {
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(await ask(i % 2, b.port));
      expect(ids.map((r) => [r.errorCode, Number(r.producerId), r.producerEpoch])).toEqual(
        [0, 1, 2, 3, 4].map((n) => [0, n, 0]),
      );
      b = await b.restart();
      const again = await ask(1, b.port);
      expect(Number(again.producerId)).toBe(1000);
      const txn = await ask(1, b.port, 'my-transaction');
      expect(txn.errorCode).toBe(53);
      expect(
        b.lines.some((l) =>
          l.includes(
            'InitProducerId for transactional id "my-transaction" refused: klog does not build transactions',
          ),
        ),
      ).toBe(true);
    } finally {
      await b.stop();
      rmSync(d, { recursive: true, force: true });
    }
  });
});
