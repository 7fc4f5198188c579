import { DEFAULT_MAX_REQUEST_BYTES } from '@klog/protocol';

/** What `klog serve` can be told; every number checked at the boundary (`resolveConfig`). */
export interface BrokerConfig {
  readonly dataDir: string;
  /** The address to bind: loopback unless told otherwise. */
  readonly host: string;
  /** 0 picks a free port (tests); `port` then tells which. */
  readonly port: number;
  /** The host clients are told to connect to (Metadata). Defaults to `host`. */
  readonly advertisedHost: string;
  /** The port clients are told; defaults to the port bound. */
  readonly advertisedPort: number | undefined;
  readonly nodeId: number;
  /**
   * Kafka's `auto.create.topics.enable` (true by default, as in Kafka): a Metadata request for an unknown
   * topic that allows it creates the topic with `numPartitions` partitions.
   */
  readonly autoCreateTopics: boolean;
  /** Kafka's `num.partitions`: partitions of an auto-created topic, or of a CreateTopics asking for −1. */
  readonly numPartitions: number;
  /** Kafka's `socket.request.max.bytes`: a larger frame closes its connection. */
  readonly socketRequestMaxBytes: number;
  /** Kafka's `connections.max.idle.ms`: a connection silent this long is closed. */
  readonly connectionsMaxIdleMs: number;
  /**
   * Bytes of responses a connection may have waiting to be sent before the broker stops reading that
   * connection's requests (a client that stops reading gets no more than this and one response buffered).
   */
  readonly maxBufferedResponseBytes: number;
  /** Kafka's `fetch.max.bytes`: the most a Fetch response carries, whatever the client asks. */
  readonly fetchMaxBytes: number;
  /** Kafka's `message.max.bytes`: the largest batch a Produce may append. */
  readonly messageMaxBytes: number;
  /** Kafka's `log.segment.bytes`. */
  readonly segmentBytes: number;
  /**
   * Teaching faults (`faults.ts`): the responses of the first `dropAcks` Produce requests that write records
   * are dropped (the connection stays open)…
   */
  readonly dropAcks: number;
  /** …and the next `closeAfterAppend` such requests get their connection closed instead of an answer. */
  readonly closeAfterAppend: number;
}

export const DEFAULT_CONFIG = {
  host: '127.0.0.1',
  port: 9092,
  nodeId: 0,
  autoCreateTopics: true,
  numPartitions: 1,
  socketRequestMaxBytes: DEFAULT_MAX_REQUEST_BYTES,
  connectionsMaxIdleMs: 600_000,
  maxBufferedResponseBytes: 1024 * 1024,
  fetchMaxBytes: 55 * 1024 * 1024,
  messageMaxBytes: 1_048_588,
  segmentBytes: 1024 * 1024 * 1024,
  dropAcks: 0,
  closeAfterAppend: 0,
} as const;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function integer(name: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got ${value}`);
  }
  return value;
}

export type BrokerOptions = Partial<BrokerConfig> & { readonly dataDir: string };

export function resolveConfig(options: BrokerOptions): BrokerConfig {
  const c = { ...DEFAULT_CONFIG, advertisedPort: undefined, ...options };
  if (c.dataDir === '') throw new ConfigError('dataDir must not be empty');
  if (c.host === '') throw new ConfigError('host must not be empty');
  const advertisedHost = c.advertisedHost ?? c.host;
  if (advertisedHost === '0.0.0.0' || advertisedHost === '::') {
    throw new ConfigError(
      `clients cannot connect to ${advertisedHost}: give the address they should use (--advertised-host)`,
    );
  }
  return {
    dataDir: c.dataDir,
    host: c.host,
    port: integer('port', c.port, 0, 65535),
    advertisedHost,
    advertisedPort: c.advertisedPort === undefined ? undefined : integer('advertisedPort', c.advertisedPort, 1, 65535),
    nodeId: integer('nodeId', c.nodeId, 0, 2 ** 31 - 1),
    autoCreateTopics: c.autoCreateTopics,
    numPartitions: integer('numPartitions', c.numPartitions, 1, 100_000),
    socketRequestMaxBytes: integer('socketRequestMaxBytes', c.socketRequestMaxBytes, 64, 2 ** 31 - 1),
    connectionsMaxIdleMs: integer('connectionsMaxIdleMs', c.connectionsMaxIdleMs, 1, 2 ** 31 - 1),
    maxBufferedResponseBytes: integer('maxBufferedResponseBytes', c.maxBufferedResponseBytes, 0, 2 ** 31 - 1),
    fetchMaxBytes: integer('fetchMaxBytes', c.fetchMaxBytes, 1, 2 ** 31 - 1),
    messageMaxBytes: integer('messageMaxBytes', c.messageMaxBytes, 1, 2 ** 31 - 1),
    segmentBytes: integer('segmentBytes', c.segmentBytes, 14, 2 ** 31 - 1),
    dropAcks: integer('dropAcks', c.dropAcks, 0, 2 ** 31 - 1),
    closeAfterAppend: integer('closeAfterAppend', c.closeAfterAppend, 0, 2 ** 31 - 1),
  };
}
