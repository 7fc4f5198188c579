import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/broker.js';
import { kafkajs, RawClient } from '../support/raw-client.js';

/**
 * Case 5 of issue 22: one Produce over more partitions than the process has file descriptors took every
 * descriptor until restart (EMFILE as an internal error, the response dropped, new connections refused).
 * Here a broker runs under `ulimit -n 200` and is sent a Produce over 300 partitions: each is answered,
 * and the broker keeps accepting connections.
 */
const child = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/broker-child.mjs');
const PARTITIONS = 300;

function startLimited(dataDir: string, nofile: number): Promise<{ proc: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      'sh',
      ['-c', `ulimit -n ${nofile} && exec "$0" "$@"`, process.execPath, child, dataDir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    proc.once('exit', (code) => reject(new Error(`the broker exited ${code}: ${stderr}`)));
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const m = /^listening (\d+)$/.exec(line);
      if (m !== null) resolve({ proc, port: Number(m[1]) });
    });
  });
}

type ProduceAnswer = {
  topics: { partitions: { partition: number; errorCode: number; baseOffset: string }[] }[];
};

describe('a Produce over more partitions than file descriptors', () => {
  it(`under ulimit -n 200, ${PARTITIONS} partitions in one request are each appended, twice; new connections are served`, async () => {
    const data = tempDir();
    const { proc, port } = await startLimited(data.dir, 200);
    try {
      const c = await RawClient.connect(port);
      const create = await kafkajs('createTopics', 0, {
        topics: [{ topic: 'wide', numPartitions: PARTITIONS, replicationFactor: 1 }],
        timeout: 60_000,
      });
      c.send(create.frame);
      expect(
        ((await create.decode(await c.next())).data as { topicErrors: { errorCode: number }[] })
          .topicErrors[0]!.errorCode,
      ).toBe(0);
      for (const round of [1, 2]) {
        const partitions = Array.from({ length: PARTITIONS }, (_, p) => ({
          partition: p,
          messages: [{ key: `k${p}`, value: `round ${round}` }],
        }));
        const req = await kafkajs(
          'produce',
          7,
          { acks: -1, timeout: 30_000, compression: 0, topicData: [{ topic: 'wide', partitions }] },
          10 + round,
        );
        c.send(req.frame);
        const answer = (await req.decode(await c.next())).data as unknown as ProduceAnswer;
        const parts = answer.topics[0]!.partitions;
        expect(parts).toHaveLength(PARTITIONS);
        expect(parts.filter((p) => p.errorCode !== 0).map((p) => `${p.partition}: ${p.errorCode}`)).toEqual(
          [],
        );
        expect(new Set(parts.map((p) => p.baseOffset))).toEqual(new Set([String(round - 1)]));
      }
      for (let i = 0; i < 10; i++) {
        const other = await RawClient.connect(port);
        const versions = await kafkajs('apiVersions', 2, {}, 100 + i);
        other.send(versions.frame);
        expect((await versions.decode(await other.next())).correlation).toBe(100 + i);
        other.close();
      }
      c.close();
    } finally {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      data.remove();
    }
  });
});
