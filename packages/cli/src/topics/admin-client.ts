import { createConnection, type Socket } from 'node:net';
import {
  type ApiCodec,
  ApiVersions,
  CreateTopics,
  type CreateTopicsResponse,
  decodeResponse,
  encodeRequest,
  FrameDecoder,
} from '@klog/protocol';

/** The broker could not be reached or answered something unusable: one line for the user, exit code 1. */
export class BrokerUnreachable extends Error {
  override readonly name = 'BrokerUnreachable';
}

/**
 * A connection that was made and is gone (closed, failed, or out of step after an answer that never came):
 * what `reconnectWhenLost` connects again for. A broker that cannot serve a request is not one.
 */
export class ConnectionLost extends BrokerUnreachable {}

/**
 * The little Kafka client `klog topics` needs: one connection, each API in the highest version both sides
 * have (asked with ApiVersions v0, which every broker answers) — so it works against `klog serve` and
 * against a Kafka broker alike. Requests may overlap (the perf tools keep several Produce in flight): a
 * broker answers a connection's requests in the order they came, so answers are matched first in, first out.
 */
export class AdminClient {
  #socket: Socket;
  #frames = new FrameDecoder();
  readonly #pending: { resolve: (frame: Uint8Array) => void; reject: (error: Error) => void }[] = [];
  #correlationId = 0;
  #versions = new Map<number, { min: number; max: number }>();
  #failure: Error | undefined;
  #reconnect: ReconnectPolicy | undefined;
  #reconnecting: Promise<void> | undefined;
  #closed = false;

  private constructor(
    socket: Socket,
    private readonly host: string,
    private readonly port: number,
    readonly where: string,
    readonly timeoutMs: number,
    /** The request header's client id: the broker's logs and a group's member list show it. */
    readonly clientId: string,
  ) {
    this.#socket = socket;
    this.#javaAddress = `${host}/${socket.remoteAddress ?? host}:${port}`;
    this.#attach(socket);
  }

  /** The broker's address as Java's InetSocketAddress prints it: host/ip:port (NetworkClient's lines). */
  readonly #javaAddress: string;

  #attach(socket: Socket): void {
    socket.on('data', (chunk) => {
      this.#frames.push(chunk);
      for (let frame = this.#frames.next(); frame !== undefined; frame = this.#frames.next())
        this.#pending.shift()?.resolve(frame);
    });
    const fail = (error: Error) => {
      this.#failure ??= error;
      for (const p of this.#pending.splice(0)) p.reject(error);
    };
    socket.on('error', (e) =>
      fail(new ConnectionLost(`the connection to ${this.where} failed: ${e.message}`)),
    );
    socket.on('close', () => fail(new ConnectionLost(`${this.where} closed the connection`)));
  }

  static async connect(
    host: string,
    port: number,
    timeoutMs = 10_000,
    clientId = 'klog-topics',
  ): Promise<AdminClient> {
    const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const client = new AdminClient(
      await openSocket(host, port, where, timeoutMs),
      host,
      port,
      where,
      timeoutMs,
      clientId,
    );
    try {
      await client.#discoverVersions();
      return client;
    } catch (error) {
      client.close();
      throw error;
    }
  }

  /**
   * From now on a request whose connection is lost (the broker restarted, the connection dropped or went
   * silent) connects again and is sent again, as Kafka's NetworkClient reconnects: after
   * reconnect.backoff.ms (50 ms), doubling to reconnect.backoff.max.ms (1 s), for as long as the policy
   * says. Only for requests that may be sent twice: a consumer's (Fetch, heartbeats, commits).
   */
  reconnectWhenLost(policy: ReconnectPolicy): void {
    this.#reconnect = policy;
  }

  async #connectAgain(lost: ConnectionLost): Promise<void> {
    const policy = this.#reconnect as ReconnectPolicy;
    for (
      let backoffMs = RECONNECT_BACKOFF_MS;
      ;
      backoffMs = Math.min(2 * backoffMs, RECONNECT_BACKOFF_MAX_MS)
    ) {
      if (this.#closed || !policy.keepTrying()) throw lost;
      await new Promise((done) => setTimeout(done, backoffMs));
      if (this.#closed || !policy.keepTrying()) throw lost;
      let socket: Socket;
      try {
        socket = await openSocket(this.host, this.port, this.where, this.timeoutMs);
      } catch (error) {
        policy.notConnected(this.#javaAddress, (error as Error).message);
        continue;
      }
      // Closed meanwhile: the new socket must not keep the process alive.
      if (this.#closed) {
        socket.destroy();
        throw lost;
      }
      // Nothing of the old connection is left to answer, or to be answered, on the new one.
      for (const p of this.#pending.splice(0)) p.reject(lost);
      this.#socket.removeAllListeners();
      this.#socket.destroy();
      this.#socket = socket;
      this.#frames = new FrameDecoder();
      this.#versions = new Map();
      this.#failure = undefined;
      this.#attach(socket);
      try {
        await this.#discoverVersions();
        return;
      } catch (error) {
        if (!(error instanceof ConnectionLost)) throw error;
        policy.notConnected(this.#javaAddress, error.message);
      }
    }
  }

  async #discoverVersions(): Promise<void> {
    const res = await this.#exchange(ApiVersions, 0, { clientSoftwareName: '', clientSoftwareVersion: '' });
    if (res.errorCode !== 0)
      throw new BrokerUnreachable(`${this.where} answered ApiVersions with error ${res.errorCode}`);
    for (const k of res.apiKeys) this.#versions.set(k.apiKey, { min: k.minVersion, max: k.maxVersion });
  }

  /** The highest version of `codec` both this client and the broker have. */
  versionOf(codec: ApiCodec<unknown, never>): number {
    const theirs = this.#versions.get(codec.apiKey);
    const top = Math.min(codec.maxVersion, theirs?.max ?? -1);
    if (theirs === undefined || top < Math.max(codec.minVersion, theirs.min)) {
      throw new BrokerUnreachable(`${this.where} does not serve ${codec.name} in a version klog speaks`);
    }
    return top;
  }

  /** Whether the broker's ApiVersions listed `apiKey` at all (an API klog may have no codec for). */
  serves(apiKey: number): boolean {
    return this.#versions.has(apiKey);
  }

  /**
   * `timeoutMs`: this request's own limit (a producer's request.timeout.ms), else the connection's. With
   * `reconnectWhenLost`, a lost connection is made again and the request sent again.
   */
  async request<Req, Res>(codec: ApiCodec<Req, Res>, body: Req, timeoutMs = this.timeoutMs): Promise<Res> {
    for (;;) {
      // Outside the retry: a broker that does not serve the API is an answer, not a lost connection.
      const version = this.versionOf(codec as ApiCodec<unknown, never>);
      try {
        return await this.#exchange(codec, version, body, timeoutMs);
      } catch (error) {
        if (!(error instanceof ConnectionLost) || this.#reconnect === undefined || this.#closed) throw error;
        // Requests in flight together share one reconnection.
        this.#reconnecting ??= this.#connectAgain(error).finally(() => {
          this.#reconnecting = undefined;
        });
        await this.#reconnecting;
      }
    }
  }

  /** The correlation id of the last request written (a client's log lines name it). */
  get correlationId(): number {
    return this.#correlationId;
  }

  /** A request the broker does not answer (Produce with acks=0): written, nothing awaited. */
  post<Req, Res>(codec: ApiCodec<Req, Res>, body: Req): void {
    if (this.#failure !== undefined) throw this.#failure;
    const version = this.versionOf(codec as ApiCodec<unknown, never>);
    this.#socket.write(encodeRequest(codec, version, ++this.#correlationId, this.clientId, body));
  }

  /** Resolves once everything written so far has left for the kernel (the socket's buffer is empty). */
  drained(): Promise<void> {
    if (this.#socket.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => this.#socket.once('drain', () => resolve()));
  }

  async #exchange<Req, Res>(
    codec: ApiCodec<Req, Res>,
    version: number,
    body: Req,
    timeoutMs = this.timeoutMs,
  ): Promise<Res> {
    if (this.#failure !== undefined) throw this.#failure;
    const correlationId = ++this.#correlationId;
    const frame = await new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(() => {
        // An answer that never came leaves the connection out of step: nothing after it can be matched.
        const late = new ConnectionLost(
          `no answer from ${this.where} to ${codec.name} within ${timeoutMs} ms`,
        );
        this.#failure ??= late;
        for (const p of this.#pending.splice(0)) p.reject(late);
        this.#socket.destroy();
      }, timeoutMs);
      this.#pending.push({
        resolve: (f) => {
          clearTimeout(timer);
          resolve(f);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.#socket.write(encodeRequest(codec, version, correlationId, this.clientId, body));
    });
    const decoded = decodeResponse(codec, version, frame);
    if (decoded.correlationId !== correlationId) {
      throw new BrokerUnreachable(
        `${this.where} answered correlation id ${decoded.correlationId}, not ${correlationId}`,
      );
    }
    return decoded.body;
  }

  /** CreateTopics for one topic (replication factor 1, no assignments): the broker's answer for it. */
  async createTopic(
    name: string,
    partitions: number,
    configs: ReadonlyMap<string, string> = new Map(),
  ): Promise<CreateTopicsResponse.CreatableTopicResult | undefined> {
    const configList = [...configs].map(([n, value]) => ({ name: n, value }));
    const res = await this.request(CreateTopics, {
      topics: [
        { name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: configList },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    return res.topics[0];
  }

  close(): void {
    this.#closed = true;
    this.#socket.removeAllListeners('close');
    this.#socket.destroy();
  }
}

/** What a client that reconnects is told and asked (`AdminClient.reconnectWhenLost`). */
export interface ReconnectPolicy {
  /** An attempt to connect again failed (a tool prints NetworkClient's warning); `address` as host/ip:port. */
  notConnected(address: string, why: string): void;
  /** Whether to try again (a tool stops trying once interrupted); when not, the request fails. */
  keepTrying(): boolean;
}

/** Kafka's client defaults: reconnect.backoff.ms and reconnect.backoff.max.ms. */
const RECONNECT_BACKOFF_MS = 50;
const RECONNECT_BACKOFF_MAX_MS = 1000;

/** A connected socket to `host:port`, or BrokerUnreachable saying why not. */
function openSocket(host: string, port: number, where: string, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new BrokerUnreachable(`no answer from ${where} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const why = e.code === 'ECONNREFUSED' ? 'connection refused: is klog serve running there?' : e.message;
      reject(new BrokerUnreachable(`cannot reach a broker at ${where} (${why})`));
    });
  });
}
