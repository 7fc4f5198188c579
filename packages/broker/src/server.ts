import { createServer, type Server, type Socket } from 'node:net';
import { ADVERTISED_APIS } from './api/advertised.js';
import type { BrokerContext, RequestStats } from './api/context.js';
import { UnsupportedRequests } from './api/unsupported.js';
import {
  type BrokerConfig,
  type BrokerOptions,
  LOG_LINE_INTERVAL_MS,
  resolveConfig,
} from './config/config.js';
import { BROKER_CONFIGS_FILE, ConfigFileStore, GROUP_CONFIGS_FILE } from './config/config-file-store.js';
import { checkDynamicBrokerConfig } from './config/dynamic-broker-config.js';
import { checkGroupConfig, consumerGroupOverrides } from './config/group-config.js';
import { TopicConfigStore } from './config/topic-config-store.js';
import { TopicConfigs } from './config/topic-configs.js';
import { type ConsumerGroupMigrationPolicy, GroupCoordinator } from './group/group-coordinator.js';
import { OFFSETS_TOPIC, OffsetsTopic } from './group/offsets-topic.js';
import { SystemTimer } from './group/timer.js';
import { FetchPurgatory } from './log/fetch-purgatory.js';
import {
  type BrokerLog,
  type LogEvent,
  openBrokerLog,
  type ProducerWindow,
  syncDirectory,
} from './log/log-port.js';
import { LogLimiter } from './logging/log-limiter.js';
import { type Logger, SILENT } from './logging/logger.js';
import { Connection, type ConnectionStats } from './network/connection.js';
import { MemoryPool } from './network/memory-pool.js';
import { ReadBuffers } from './network/read-buffers.js';
import { BROKER_DIR, brokerDir } from './state/broker-dir.js';
import { loadOrCreateMetaProperties } from './state/meta-properties.js';
import { ProducerIdManager } from './state/producer-id-manager.js';
import { FaultInjector } from './teaching/faults.js';

export interface StartOptions extends BrokerOptions {
  readonly logger?: Logger;
  /** Judges every producer batch in place of the partitions' own producer state (a learner's, from `klog serve --window`). */
  readonly producerWindow?: ProducerWindow;
  /** How long shutdown waits for a connection's last response to go out before dropping it. */
  readonly shutdownGraceMs?: number;
}

/**
 * How often the broker looks for idle connections: a quarter of connections.max.idle.ms, at most a second
 * (Kafka's Selector checks at each poll), so one is closed within that much past its limit.
 */
function idleSweepMs(maxIdleMs: number): number {
  return Math.max(10, Math.min(1000, Math.floor(maxIdleMs / 4)));
}

/**
 * `klog serve`: a broker on one node. It opens the data directory's log (taking its lock), the producer id
 * block and the node's identity, then listens. `close()` is the clean shutdown of SIGINT / SIGTERM: stop
 * accepting, wake waiting fetches, let each connection finish and answer the request in hand, flush and
 * close the log.
 */
export class Broker {
  readonly #server: Server;
  readonly #connections = new Set<Connection>();
  /** Open connections by client address (`max.connections.per.ip`). */
  readonly #perIp = new Map<string, number>();
  readonly #ctx: BrokerContext;
  readonly #log: BrokerLog;
  readonly #fetchWaits: FetchPurgatory;
  readonly #logger: Logger;
  readonly #graceMs: number;
  readonly #groups: GroupCoordinator;
  readonly #offsetsTopic: OffsetsTopic;
  readonly #housekeeping: NodeJS.Timeout[] = [];
  #nextId = 1;
  #flusher: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;
  /** Start-up's check of the logs, running until it is through (`close` stops it and waits for it). */
  #checkingLogs: Promise<void> = Promise.resolve();
  #port = 0;

  private constructor(config: BrokerConfig, options: StartOptions, server: Server) {
    this.#logger = options.logger ?? SILENT;
    this.#graceMs = options.shutdownGraceMs ?? 5000;
    this.#server = server;
    // A partition opened later reads its topic's log config (storage's LogConfig) from the configs.
    let configs: TopicConfigs | undefined;
    this.#log = openBrokerLog({
      dataDir: config.dataDir,
      ownEntries: [BROKER_DIR],
      segmentBytes: config.segmentBytes,
      messageMaxBytes: config.messageMaxBytes,
      flushIntervalMessages: config.logFlushIntervalMessages,
      topicLogConfig: (topic) => configs?.logConfig(topic) ?? {},
      ...(options.producerWindow === undefined ? {} : { producerWindow: options.producerWindow }),
    });
    try {
      const own = brokerDir(config.dataDir, syncDirectory);
      const store = TopicConfigStore.open(own, new Set(this.#log.topics().keys()), syncDirectory);
      configs = new TopicConfigs(store, config.logSettings, (topic) => this.#log.reconfigureTopic(topic));
      const topicConfigs = configs;
      const groupConfigs = ConfigFileStore.open(own, GROUP_CONFIGS_FILE, checkGroupConfig, syncDirectory);
      const dynamicBrokerConfigs = ConfigFileStore.open(
        own,
        BROKER_CONFIGS_FILE,
        checkDynamicBrokerConfig,
        syncDirectory,
      );
      const { clusterId } = loadOrCreateMetaProperties(own, config.nodeId, syncDirectory);
      const producerIds = new ProducerIdManager(own, syncDirectory);
      this.#fetchWaits = new FetchPurgatory();
      const log = this.#log;
      this.#offsetsTopic = new OffsetsTopic(
        { config, log, topicConfigs, logger: this.#logger },
        { partitions: config.offsetsTopicNumPartitions },
        () => Date.now(),
      );
      this.#groups = new GroupCoordinator(
        new SystemTimer(),
        this.#offsetsTopic,
        {
          groupMinSessionTimeoutMs: config.groupMinSessionTimeoutMs,
          groupMaxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
          groupInitialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
          groupMaxSize: config.groupMaxSize,
          groupMaxMetadataBytes: config.messageMaxBytes,
          offsetsRetentionMs: config.offsetsRetentionMinutes * 60_000,
          consumerGroupSessionTimeoutMs: config.groupConsumerSessionTimeoutMs,
          consumerGroupHeartbeatIntervalMs: config.groupConsumerHeartbeatIntervalMs,
          consumerGroupAssignors: config.groupConsumerAssignors.split(','),
          consumerGroupMaxSize: config.groupConsumerMaxSize,
          consumerGroupMigrationPolicy: config.groupConsumerMigrationPolicy as ConsumerGroupMigrationPolicy,
        },
        (topic, partition) => {
          try {
            return log.partition(topic, partition) !== undefined;
          } catch {
            return false;
          }
        },
        undefined,
        (line) => this.#logger.info(line),
        log,
        (groupId) => consumerGroupOverrides(groupConfigs.get(groupId)),
      );
      const loaded = this.#offsetsTopic.load(this.#groups);
      if (this.#offsetsTopic.exists) {
        this.#logger.info(
          `${OFFSETS_TOPIC}: ${loaded} records read back, ${this.#groups.groupCount} group(s) loaded`,
        );
      }
      const broker = this;
      this.#ctx = {
        config,
        get advertised() {
          return { host: config.advertisedHost, port: config.advertisedPort ?? broker.#port };
        },
        clusterId,
        advertisedApis: ADVERTISED_APIS,
        log: this.#log,
        topicConfigs,
        groupConfigs,
        dynamicBrokerConfigs,
        producerIds,
        fetchWaits: this.#fetchWaits,
        groups: this.#groups,
        offsetsTopic: this.#offsetsTopic,
        logger: this.#logger,
        limited: new LogLimiter(this.#logger, LOG_LINE_INTERVAL_MS),
        requestMemory: new MemoryPool(config.queuedMaxRequestBytes),
        responseMemory: new MemoryPool(config.queuedMaxRequestBytes),
        readBuffers: new ReadBuffers(),
        faults: new FaultInjector(
          { dropAcks: config.dropAcks, closeAfterAppend: config.closeAfterAppend },
          this.#logger,
        ),
        now: () => Date.now(),
        stats: new Map(),
        unsupported: new UnsupportedRequests(),
        inFlight: new Set(),
      };
    } catch (error) {
      this.#log.close();
      throw error;
    }
    this.#every(idleSweepMs(config.connectionsMaxIdleMs), () => {
      const now = performance.now();
      for (const c of this.#connections) c.expireIfIdle(now);
    });
    this.#every(config.offsetsRetentionCheckIntervalMs, () => this.#groups.expireOffsets());
  }

  /** Housekeeping on a timer (offset expiry); a failure is logged, not thrown. */
  #every(ms: number, task: () => void): void {
    const t = setInterval(() => {
      try {
        task();
      } catch (error) {
        this.#logger.error(`housekeeping failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }, ms);
    t.unref();
    this.#housekeeping.push(t);
  }

  /** The group coordinator, for tests and tools. */
  get groups(): GroupCoordinator {
    return this.#groups;
  }

  /**
   * Listens, then opens the data directory; resolves once clients can connect. The port first: a broker that
   * cannot listen (the port in use) leaves no data directory behind, nor takes its lock.
   */
  static async start(options: StartOptions): Promise<Broker> {
    const config = resolveConfig(options);
    // Paused: a connection's reads start once it reads into the shared buffer (socket-reader.ts).
    const server = createServer({ pauseOnConnect: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: config.host, port: config.port }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    let broker: Broker;
    try {
      broker = new Broker(config, options, server);
    } catch (error) {
      server.close();
      throw error;
    }
    // In the continuation of the listen callback: no connection can have been emitted before this listener.
    server.on('connection', (socket) => broker.#accept(socket));
    broker.#startFlusher();
    const address = broker.#server.address();
    broker.#port = typeof address === 'object' && address !== null ? address.port : config.port;
    broker.#server.on('error', (error) => broker.#logger.error(`listener: ${error.message}`));
    // Retention and the cleaner over every log, __consumer_offsets too: storage's LogManager schedules them.
    broker.#log.startup({
      retentionCheckIntervalMs: config.logRetentionCheckIntervalMs,
      cleanerBackoffMs: config.logCleanerBackoffMs,
      onEvent: (event) => broker.#logEvent(event),
    });
    const topics = broker.#log.topics();
    broker.#logger.info(
      `klog serve: listening on ${config.host}:${broker.#port}, advertised as ${broker.#ctx.advertised.host}:${broker.#ctx.advertised.port}; ` +
        `node ${config.nodeId}, cluster ${broker.#ctx.clusterId}, data in ${config.dataDir} (${topics.size} topic${topics.size === 1 ? '' : 's'})`,
    );
    // Kafka's LogManager loads every log before it serves; klog checks them while it serves (a restart
    // over many partitions answers at once), a partition first asked for being opened then.
    broker.#checkingLogs = broker.#reportLoad();
    for (const entry of broker.#log.unmapped) {
      broker.#logger.warn(
        `klog serve: ${entry.path} maps to no topic (${entry.reason}): left alone, not served`,
      );
    }
    if (broker.#ctx.faults.active) {
      const { dropAcks, closeAfterAppend } = config;
      broker.#logger.warn(
        `klog serve: faults on: of the Produce requests that write records, the first ${dropAcks} lose their response` +
          ` and the next ${closeAfterAppend} their connection, after the append`,
      );
    }
    return broker;
  }

  /** Start-up's check of every log, reported once it is through: damage one line each, gaps one count. */
  async #reportLoad(): Promise<void> {
    try {
      const report = await this.#log.checkLogs();
      for (const line of report.damage) this.#logger.warn(`klog serve: ${line}`);
      if (report.gaps !== undefined) this.#logger.info(`klog serve: ${report.gaps}`);
      this.#logger.info(`klog serve: start-up check done: ${report.summary}`);
    } catch (error) {
      // A partition that cannot be opened is answered with its error when asked for; say so here too.
      this.#logger.error(`klog serve: loading the partitions: ${(error as Error).message}`);
    }
  }

  /** What a background pass of the log did, one line (Kafka's LogManager and LogCleaner log the same). */
  #logEvent(event: LogEvent): void {
    if (event.kind === 'pass') {
      this.#logger.debug(
        `${event.task === 'compaction' ? 'cleaner' : 'retention'} pass ${event.phase}: ` +
          `${event.partitions} partition(s) looked at, ${event.opened} opened for work`,
      );
      return;
    }
    const at = `${event.topic}-${event.partition}`;
    switch (event.kind) {
      case 'retention':
        this.#logger.info(
          `${at}: retention deleted ${event.deleted.length} segment(s) from offset ${event.deleted[0]}; log start offset now ${event.logStartOffset}`,
        );
        return;
      case 'compaction': {
        const r = event.report;
        this.#logger.info(
          `${at}: compacted ${r.segmentsCleaned} segment(s): ${r.recordsBefore} → ${r.recordsAfter} records, ` +
            `${r.bytesBefore} → ${r.bytesAfter} bytes${event.tombstonesRemoved ? ', tombstones removed' : ''}`,
        );
        return;
      }
      case 'failed': {
        // A deleted topic, a full disk: said; the other partitions went on and the next pass tries again.
        const { error } = event;
        const message = error instanceof Error ? error.message : String(error);
        this.#ctx.limited.log('warn', `${event.task} ${at}`, `${at}: ${event.task} failed: ${message}`);
        return;
      }
    }
  }

  /** Kafka's `log.flush.interval.ms`: every partition fsynced this often; a failure is logged, not fatal. */
  #startFlusher(): void {
    const ms = this.#ctx.config.logFlushIntervalMs;
    if (ms === undefined) return;
    this.#flusher = setInterval(() => {
      try {
        this.#log.flush();
      } catch (error) {
        this.#ctx.limited.log(
          'error',
          'storage',
          `log.flush.interval.ms flush failed: ${(error as Error).message}`,
        );
      }
    }, ms);
    this.#flusher.unref();
  }

  get config(): BrokerConfig {
    return this.#ctx.config;
  }

  /** Where it listens (the real port when started on port 0). */
  get address(): { host: string; port: number } {
    return { host: this.#ctx.config.host, port: this.#port };
  }

  /** Requests handled so far by API name, and how many of them were pipelined. */
  get requestStats(): RequestStats {
    return this.#ctx.stats;
  }

  /** Fetches waiting for data now. */
  get waitingFetches(): number {
    return this.#fetchWaits.size;
  }

  /** The teaching faults done so far (`dropAcks`, `closeAfterAppend`). */
  get faults(): { readonly dropped: number; readonly closed: number } {
    return this.#ctx.faults.done;
  }

  /** The memory pools (`queued.max.request.bytes`), requests' and responses': bytes held now, at most so far. */
  get memory(): Record<
    'requests' | 'responses',
    { readonly used: number; readonly peak: number; readonly capacity: number }
  > {
    const figures = (m: MemoryPool) => ({ used: m.used, peak: m.peak, capacity: m.capacity });
    return { requests: figures(this.#ctx.requestMemory), responses: figures(this.#ctx.responseMemory) };
  }

  /** The memory Fetch reads records into (`ReadBuffers`): bytes waiting to be lent, reads served, reads into reused memory. */
  get fetchReadBuffers(): { readonly freeBytes: number; readonly taken: number; readonly reused: number } {
    const pool = this.#ctx.readBuffers;
    return { freeBytes: pool.freeBytes, ...pool.counts };
  }

  get connections(): ConnectionStats[] {
    return [...this.#connections].map((c) => c.stats());
  }

  #accept(socket: Socket): void {
    if (this.#closing !== undefined) {
      socket.destroy();
      return;
    }
    const refusal = this.#refusal(socket);
    if (refusal !== undefined) {
      this.#ctx.limited.log(
        'warn',
        refusal.kind,
        `refused a connection from ${socket.remoteAddress}: ${refusal.why}`,
      );
      socket.destroy();
      return;
    }
    const ip = socket.remoteAddress ?? '';
    this.#perIp.set(ip, (this.#perIp.get(ip) ?? 0) + 1);
    const port = socket.remotePort ?? 0;
    this.#connections.add(new Connection(this.#nextId++, socket, ip, port, this.#ctx, this.#forget));
  }

  /** A connection has closed: one function for all of them. */
  readonly #forget = (c: Connection): void => {
    this.#connections.delete(c);
    const left = (this.#perIp.get(c.host) ?? 1) - 1;
    if (left === 0) this.#perIp.delete(c.host);
    else this.#perIp.set(c.host, left);
  };

  /**
   * Kafka's `max.connections` and `max.connections.per.ip`, checked as a connection is accepted. Kafka's
   * acceptor waits for a slot under the first; Node cannot stop accepting without closing the listener, so
   * klog closes the new connection under both (the client retries, as it does on Kafka's per-IP refusal).
   */
  #refusal(socket: Socket): { kind: string; why: string } | undefined {
    const { maxConnections, maxConnectionsPerIp } = this.#ctx.config;
    if (this.#connections.size >= maxConnections) {
      return {
        kind: 'max.connections',
        why: `${this.#connections.size} connections open, max.connections is ${maxConnections}`,
      };
    }
    const fromIp = this.#perIp.get(socket.remoteAddress ?? '') ?? 0;
    if (fromIp >= maxConnectionsPerIp) {
      return {
        kind: `max.connections.per.ip ${socket.remoteAddress}`,
        why: `${fromIp} connections open from it, max.connections.per.ip is ${maxConnectionsPerIp}`,
      };
    }
    return undefined;
  }

  #stopGroups(): void {
    for (const t of this.#housekeeping) clearInterval(t);
    this.#groups.close();
  }

  /** Clean shutdown; safe to call more than once. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    this.#logger.info(
      `klog serve: shutting down (${this.#connections.size} connection${this.#connections.size === 1 ? '' : 's'})`,
    );
    clearInterval(this.#flusher);
    const stopped = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#fetchWaits.close();
    // Joins and syncs waiting for their group are answered (NOT_COORDINATOR: find it again), as Kafka does
    // when a coordinator unloads.
    this.#stopGroups();
    await Promise.all([...this.#connections].map((c) => c.end(this.#graceMs)));
    await stopped;
    // Handlers of connections that closed meanwhile may still be finishing: the log outlives them.
    await Promise.allSettled([...this.#ctx.inFlight]);
    this.#log.close();
    // Stopped by the close above at its next slice: its last line comes before the goodbye.
    await this.#checkingLogs;
    this.#logger.info('klog serve: log flushed and closed; bye');
  }
}
