import { createServer, type Server, type Socket } from 'node:net';
import { ApiVersions, encodeResponse, Metadata } from '@klog/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { AdminClient } from '../../src/topics/admin-client.js';

/**
 * AdminClient's reconnect (`reconnectWhenLost`) against a stand-in broker that serves ApiVersions v0 alone
 * and counts its connections: a lost connection is made again and the request sent again; a broker that
 * does not serve an API is an answer, not a reason to connect again.
 */
let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
  server?.close();
});

async function standIn(): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  server = createServer((socket) => {
    connections++;
    sockets.push(socket);
    socket.on('data', (frame) => {
      // One ApiVersions v0 request per packet here: its correlation id follows size, key and version.
      const answer = encodeResponse(ApiVersions, 0, frame.readInt32BE(8), {
        errorCode: 0,
        apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 0 }],
        throttleTimeMs: 0,
        supportedFeatures: [],
        finalizedFeaturesEpoch: -1,
        finalizedFeatures: [],
        zkMigrationReady: false,
      } as never);
      for (const c of answer.chunks) socket.write(c);
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, connections: () => connections };
}

const metadataRequest = {
  topics: null,
  allowAutoTopicCreation: false,
  includeClusterAuthorizedOperations: false,
  includeTopicAuthorizedOperations: false,
};

describe('AdminClient.reconnectWhenLost', () => {
  it('sends a request again on a new connection when its connection was lost, without a failed attempt to report', async () => {
    const broker = await standIn();
    const client = await AdminClient.connect('127.0.0.1', broker.port);
    const failed: string[] = [];
    client.reconnectWhenLost({ notConnected: (address) => failed.push(address), keepTrying: () => true });
    for (const s of sockets.splice(0)) s.destroy();
    const res = await client.request(ApiVersions, { clientSoftwareName: '', clientSoftwareVersion: '' });
    expect(res.errorCode).toBe(0);
    expect([broker.connections(), failed]).toEqual([2, []]);
    client.close();
  });

  it('gives up when the policy says so, after reporting each failed attempt as host/ip:port', async () => {
    const broker = await standIn();
    const client = await AdminClient.connect('127.0.0.1', broker.port);
    const failed: string[] = [];
    client.reconnectWhenLost({
      notConnected: (address) => failed.push(address),
      keepTrying: () => failed.length < 2,
    });
    server!.close();
    for (const s of sockets.splice(0)) s.destroy();
    await expect(
      client.request(ApiVersions, { clientSoftwareName: '', clientSoftwareVersion: '' }),
    ).rejects.toThrow('closed the connection');
    expect(failed).toEqual([`127.0.0.1/127.0.0.1:${broker.port}`, `127.0.0.1/127.0.0.1:${broker.port}`]);
    client.close();
  });

  it('does not connect again for an API the broker does not serve: that is its answer', async () => {
    const broker = await standIn();
    const client = await AdminClient.connect('127.0.0.1', broker.port);
    client.reconnectWhenLost({ notConnected: () => {}, keepTrying: () => true });
    await expect(client.request(Metadata, metadataRequest as never)).rejects.toThrow(
      /does not serve Metadata in a version klog speaks/,
    );
    expect(broker.connections()).toBe(1);
    client.close();
  });
});
