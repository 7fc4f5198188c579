import { createRequire } from 'node:module';
import { createConnection, type Socket } from 'node:net';
import { FrameDecoder } from '@klog/protocol';

const require = createRequire(import.meta.url);

/** A plain socket to the broker: send any bytes, read whole response frames, see when it is closed. */
export class RawClient {
  readonly socket: Socket;
  readonly #frames = new FrameDecoder(1 << 30);
  readonly #waiting: { resolve: (frame: Uint8Array) => void; reject: (e: Error) => void }[] = [];
  readonly #ready: Uint8Array[] = [];
  readonly closed: Promise<void>;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk) => {
      this.#frames.push(chunk);
      for (let f = this.#frames.next(); f !== undefined; f = this.#frames.next()) {
        const waiter = this.#waiting.shift();
        if (waiter) waiter.resolve(f);
        else this.#ready.push(f);
      }
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        for (const w of this.#waiting.splice(0)) w.reject(new Error('the broker closed the connection'));
        resolve();
      }),
    );
    socket.on('error', () => {});
  }

  static connect(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  send(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** The next response frame (after its size prefix). */
  next(): Promise<Uint8Array> {
    const f = this.#ready.shift();
    if (f) return Promise.resolve(f);
    if (this.socket.destroyed) return Promise.reject(new Error('the connection is closed'));
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
  }

  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  close(): void {
    this.socket.destroy();
  }
}

interface KafkaJsApi {
  protocol(o: { version: number }): (args: unknown) => {
    request: unknown;
    response: { decode(b: Buffer): Promise<unknown>; parse(d: unknown): Promise<unknown> };
  };
}
const kafkajsRequest = require('kafkajs/src/protocol/request.js') as (o: {
  correlationId: number;
  clientId: string;
  request: unknown;
}) => Promise<{ buffer: Buffer }>;

/** A request as KafkaJS 2.2.4 encodes it, and its decoder for the response. */
export async function kafkajs(api: string, version: number, args: unknown, correlationId = 1) {
  const mod = require(`kafkajs/src/protocol/requests/${api}/index.js`) as KafkaJsApi;
  const { request, response } = mod.protocol({ version })(args);
  const frame = new Uint8Array(
    (await kafkajsRequest({ correlationId, clientId: 'raw-test', request })).buffer,
  );
  return {
    frame,
    /** Reads a response frame (after the size prefix) as KafkaJS does: correlation id, then the body. */
    async decode(responseFrame: Uint8Array) {
      const correlation = new DataView(responseFrame.buffer, responseFrame.byteOffset).getInt32(0);
      const data = await response.decode(Buffer.from(responseFrame.subarray(4)));
      return { correlation, data: data as Record<string, unknown>, parse: () => response.parse(data) };
    },
  };
}

/** Bytes of a request header (v1, or v2 with its empty tag buffer) and body, framed: for requests no client would send. */
export function rawFrame(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  body: Uint8Array = new Uint8Array(0),
  headerV2 = false,
  client = 'raw-test',
): Uint8Array {
  const clientId = Buffer.from(client);
  const tags = headerV2 ? 1 : 0;
  const out = Buffer.alloc(4 + 8 + 2 + clientId.length + tags + body.length);
  out.writeInt32BE(out.length - 4, 0);
  out.writeInt16BE(apiKey, 4);
  out.writeInt16BE(apiVersion, 6);
  out.writeInt32BE(correlationId, 8);
  out.writeInt16BE(clientId.length, 12);
  clientId.copy(out, 14);
  out.set(body, 14 + clientId.length + tags);
  return out;
}

/**
 * Creates topics through a raw CreateTopics v0 (as KafkaJS encodes it), failing when the broker refuses
 * any of them: a test set up on a topic that was never made would fail later, and far from the cause.
 */
export async function createTopicsRaw(
  port: number,
  topics: readonly { name: string; partitions?: number }[],
): Promise<void> {
  const c = await RawClient.connect(port);
  try {
    const create = await kafkajs('createTopics', 0, {
      topics: topics.map((t) => ({ topic: t.name, numPartitions: t.partitions ?? 1, replicationFactor: 1 })),
      timeout: 1000,
    });
    c.send(create.frame);
    const { data } = await create.decode(await c.next());
    const refused = (data.topicErrors as { topic: string; errorCode: number }[]).filter(
      (t) => t.errorCode !== 0,
    );
    if (refused.length > 0) {
      throw new Error(
        `CreateTopics refused ${refused.map((t) => `${t.topic} (code ${t.errorCode})`).join(', ')}`,
      );
    }
  } finally {
    c.close();
  }
}

/** Creates a one-partition topic through a raw CreateTopics v0. */
export function createTopicRaw(port: number, topic: string): Promise<void> {
  return createTopicsRaw(port, [{ name: topic }]);
}

/** A Produce v7 (acks=all, as KafkaJS encodes it) of one record with key `k` and `value` to partition 0 of `topic`. */
export function produceOneRaw(topic: string, value: Buffer, correlationId: number) {
  return kafkajs(
    'produce',
    7,
    {
      acks: -1,
      timeout: 30000,
      compression: 0,
      topicData: [{ topic, partitions: [{ partition: 0, messages: [{ key: 'k', value }] }] }],
    },
    correlationId,
  );
}

/** A Fetch v11 of partition 0 of `topic` from offset 0 that waits up to `maxWaitTime` for one byte. */
export function waitingFetchRaw(topic: string, maxWaitTime: number, correlationId = 1) {
  return kafkajs(
    'fetch',
    11,
    {
      replicaId: -1,
      maxWaitTime,
      minBytes: 1,
      maxBytes: 1024,
      topics: [{ topic, partitions: [{ partition: 0, fetchOffset: '0', maxBytes: 1024 }] }],
    },
    correlationId,
  );
}
