import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readSocket, type SocketReader } from '../../src/network/socket-reader.js';

// Reads through the shared buffer (issue 25): every byte in order, no buffer allocated per read, and a muted
// connection that still reads a little ahead, so a client's FIN is seen while its request waits.

let server: Server | undefined;
afterEach(() => server?.close());

interface Accepted {
  reader: SocketReader;
  chunks: Buffer[];
  /** `.buffer` of each chunk as it arrived (the view is only valid during the call). */
  backing: Set<ArrayBufferLike>;
}

async function pair(): Promise<{ client: Socket; accepted: Promise<Accepted> }> {
  let resolveAccepted: (a: Accepted) => void = () => {};
  const accepted = new Promise<Accepted>((r) => {
    resolveAccepted = r;
  });
  server = createServer({ pauseOnConnect: true }, (socket) => {
    const chunks: Buffer[] = [];
    const backing = new Set<ArrayBufferLike>();
    const reader = readSocket(socket, {
      received(chunk) {
        backing.add(chunk.buffer);
        chunks.push(Buffer.from(chunk));
      },
    });
    resolveAccepted({ reader, chunks, backing });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const client = connect(port, '127.0.0.1');
  await once(client, 'connect');
  return { client, accepted };
}

function pattern(n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + (i >>> 8)) & 0xff;
  return b;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setImmediate(r));
}

describe('readSocket', () => {
  it(`takes the shared-buffer path on this Node (${process.version}), not the ordinary reads`, async () => {
    // The path reaches into Node's private socket handle and onread keys: a Node that drops them would
    // quietly fall back to a buffer per read, which only the bench's garbage figures would show.
    const { client, accepted } = await pair();
    const a = await accepted;
    expect(a.reader.path).toBe('shared-buffer');
    client.destroy();
  });

  it('hands on 4 MB in order, every read in one shared buffer', async () => {
    const { client, accepted } = await pair();
    const a = await accepted;
    const sent = pattern(4 * 1024 * 1024);
    for (let at = 0; at < sent.length; at += 100_000) client.write(sent.subarray(at, at + 100_000));
    await until(() => a.chunks.reduce((n, c) => n + c.length, 0) >= sent.length);
    expect(Buffer.concat(a.chunks).equals(sent)).toBe(true);
    expect(a.chunks.length).toBeGreaterThan(10);
    // Node's default reads give each chunk a fresh buffer: 4 MB is at least 64 of them.
    expect(a.backing.size).toBe(1);
    expect(a.reader.socket.remoteAddress).toBe('127.0.0.1');
    client.destroy();
  });

  it('muted, it reads ahead a little, then stops; resumed, it hands on what it kept, in order', async () => {
    const { client, accepted } = await pair();
    const a = await accepted;
    a.reader.pause();
    // More than loopback's socket buffers hold (a few MB), so the client's writes back up once reading stops.
    const sent = pattern(32 * 1024 * 1024);
    client.write(sent);
    await until(() => client.writableLength > 0);
    expect(a.chunks).toEqual([]);
    // What was read ahead: past the 16 KiB mark by at most the one read that crossed it.
    expect(a.reader.socket.bytesRead).toBeLessThanOrEqual(16 * 1024 + 64 * 1024);
    a.reader.resume();
    await until(() => a.chunks.reduce((n, c) => n + c.length, 0) >= sent.length);
    expect(Buffer.concat(a.chunks).equals(sent)).toBe(true);
    client.destroy();
  });

  it("muted, it still sees the client's FIN", async () => {
    const { client, accepted } = await pair();
    const a = await accepted;
    a.reader.pause();
    const ended = once(a.reader.socket, 'end');
    client.end(Buffer.from('last words'));
    await ended;
    expect(a.chunks).toEqual([]);
    a.reader.resume();
    expect(Buffer.concat(a.chunks).toString()).toBe('last words');
  });
});
