import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBroker, type TestBroker } from '../support/broker.js';
import { kafkajs, kcatConsume, PARTITIONS, pythonProduce } from '../support/clients.js';
import { RawClient, rawFrame } from '../support/raw-client.js';

/** Real client processes on a busy 2-core machine: time out only on a hang. */
const LONG_TIMEOUT_MS = 300_000;
let b: TestBroker;
beforeAll(async () => {
  b = await startBroker({ socketRequestMaxBytes: 1024 * 1024 });
  const admin = kafkajs(b.port).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'steady', numPartitions: PARTITIONS }] });
  await admin.disconnect();
});
afterAll(() => b.stop());

/** Every kind of bad input a connection can bring, each closing only its own connection. */
const BAD: [string, Uint8Array][] = [
  ['a frame over socket.request.max.bytes', new Uint8Array([0, 0x20, 0, 0])],
  ['a negative size', new Uint8Array([0x80, 0, 0, 0])],
  ['a header cut short', new Uint8Array([0, 0, 0, 2, 0, 3])],
  ['garbage', new Uint8Array([0, 0, 0, 10, 0x13, 0x37, 0xca, 0xfe, 0xba, 0xbe, 1, 2, 3, 4])],
  ['an unknown API key', rawFrame(4242, 0, 1)],
  ['consumer groups (JoinGroup)', rawFrame(11, 5, 1)],
  ['a version not advertised', rawFrame(0, 1, 1)],
  ['a body that does not parse', rawFrame(0, 7, 1, new Uint8Array([0xff, 0xff, 0, 0, 0, 1]))],
];

describe('bad input on other connections while a producer keeps working', {
  timeout: LONG_TIMEOUT_MS,
}, () => {
  it('each bad connection is closed; the producer’s messages all land, once each', async () => {
    const producing = pythonProduce(b.port, 'steady', 3000, 'steady');
    const closedFor: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (const [what, bytes] of BAD) {
        const c = await RawClient.connect(b.port);
        c.send(bytes);
        await c.closed;
        closedFor.push(what);
      }
      // A truncated frame from a client that then leaves.
      const c = await RawClient.connect(b.port);
      c.send(rawFrame(3, 1, 1, new Uint8Array([0, 0, 0, 1])).subarray(0, 12));
      c.close();
    }
    const reports = await producing;
    expect(closedFor).toHaveLength(3 * BAD.length);
    expect(reports.size).toBe(3000);
    const records = await kcatConsume(b.port, 'steady');
    expect(records).toHaveLength(3000);
    expect(new Set(records.map((r) => r.key)).size).toBe(3000);
    for (const r of records) expect(reports.get(r.key)).toEqual({ partition: r.partition, offset: r.offset });
  });
});
