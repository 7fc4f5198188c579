import type { BrokerConfig } from '../config/config.js';
import type { ConfigFileStore } from '../config/config-file-store.js';
import type { TopicConfigs } from '../config/topic-configs.js';
import type { GroupCoordinator } from '../group/group-coordinator.js';
import type { OffsetsTopic } from '../group/offsets-topic.js';
import type { FetchPurgatory } from '../log/fetch-purgatory.js';
import type { BrokerLog } from '../log/log-port.js';
import type { LogLimiter } from '../logging/log-limiter.js';
import type { Logger } from '../logging/logger.js';
import type { MemoryPool } from '../network/memory-pool.js';
import type { ReadBuffers } from '../network/read-buffers.js';
import type { ProducerIdManager } from '../state/producer-id-manager.js';
import type { FaultInjector } from '../teaching/faults.js';
import type { UnsupportedRequests } from './unsupported.js';

/**
 * One line of ApiVersions' answer. Declared here, not in advertised.ts: that file imports
 * every handler, and every handler imports this one (an import circle).
 */
export interface AdvertisedApi {
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
}

/** What a request handler may use: the broker's configuration, its log, and its shared state. */
export interface BrokerContext {
  readonly config: BrokerConfig;
  /** The address clients are told to connect to (Metadata): known once the broker listens. */
  readonly advertised: { readonly host: string; readonly port: number };
  readonly clusterId: string;
  /** What ApiVersions answers: the APIs handled, in the versions advertised (advertised.ts). */
  readonly advertisedApis: readonly AdvertisedApi[];
  readonly log: BrokerLog;
  /** Each topic's configs: its own, the broker's defaults, and what its logs run with. */
  readonly topicConfigs: TopicConfigs;
  /** Each group's own configs (GROUP config resources), stored and described. */
  readonly groupConfigs: ConfigFileStore;
  /** This broker's dynamic configs klog stores without acting on (`DYNAMIC_BROKER_CONFIGS`), by broker id. */
  readonly dynamicBrokerConfigs: ConfigFileStore;
  readonly producerIds: ProducerIdManager;
  readonly fetchWaits: FetchPurgatory;
  /** The group coordinator (this broker coordinates every group) and where it keeps its state. */
  readonly groups: GroupCoordinator;
  readonly offsetsTopic: OffsetsTopic;
  readonly logger: Logger;
  /** For lines that may come in floods (storage errors, refused connections): one per kind per interval. */
  readonly limited: LogLimiter;
  /** `queued.max.request.bytes`: the bytes of requests every connection is reading or handling, together. */
  readonly requestMemory: MemoryPool;
  /** The same budget for responses not yet taken by the kernel: a Fetch is cut to what is left of it. */
  readonly responseMemory: MemoryPool;
  /** The memory Fetch reads records into, taken back once the socket has written them. */
  readonly readBuffers: ReadBuffers;
  /** The teaching faults asked for (none unless `dropAcks` / `closeAfterAppend`). */
  readonly faults: FaultInjector;
  /** Wall-clock milliseconds (the append's time for producer state and LogAppendTime). */
  now(): number;
  readonly stats: RequestStats;
  /** Requests klog does not serve, by client and API: each pair is logged at WARN once. */
  readonly unsupported: UnsupportedRequests;
  /**
   * Handlers still running (a fetch waiting for data), also those of connections already closed: the log
   * is closed only once they are done.
   */
  readonly inFlight: Set<Promise<unknown>>;
}

/**
 * Requests handled, by API name; `pipelined` counts those whose bytes were already here when the one
 * before them on their connection was answered — the client had sent them without waiting (requests in
 * flight, as librdkafka's `max.in.flight` allows).
 */
export type RequestStats = Map<string, { requests: number; pipelined: number }>;

/** The Produce path asks for no response (acks = 0). */
export const NO_RESPONSE = Symbol('no response');

/**
 * Close the connection instead of answering: what Kafka does when an acks = 0 produce fails, the only way
 * such a producer learns of it.
 */
export class CloseConnection extends Error {
  override readonly name = 'CloseConnection';
}
