// A broker's log, topic configs and `__consumer_offsets` over a data directory, opened as `klog serve` opens
// them (the offsets read back from disk): shared by the tests that load a coordinator from real files.
import { TopicConfigStore } from '../../src/config/topic-config-store.js';
import { TopicConfigs } from '../../src/config/topic-configs.js';
import { OffsetsTopic } from '../../src/group/offsets-topic.js';
import { openBrokerLog, syncDirectory } from '../../src/log/log-port.js';
import { SILENT } from '../../src/logging/logger.js';
import { BROKER_DIR, brokerDir } from '../../src/state/broker-dir.js';

export interface OffsetsLogOptions {
  /** offsets.topic.num.partitions. */
  readonly partitions: number;
  /** offsets.topic.segment.bytes; the coordinator's default when absent. */
  readonly segmentBytes?: number;
  /** Broker-wide topic config defaults (`log.roll.ms`, …). */
  readonly defaults?: ReadonlyMap<string, string>;
  /** The coordinator's clock, which stamps its records. */
  readonly now: () => number;
}

export function openOffsetsLog(dir: string, options: OffsetsLogOptions) {
  let configs: TopicConfigs | undefined;
  const log = openBrokerLog({
    dataDir: dir,
    ownEntries: [BROKER_DIR],
    segmentBytes: 1_073_741_824,
    messageMaxBytes: 1_048_588,
    topicLogConfig: (topic) => configs?.logConfig(topic) ?? {},
  });
  const store = TopicConfigStore.open(
    brokerDir(dir, syncDirectory),
    new Set(log.topics().keys()),
    syncDirectory,
  );
  configs = new TopicConfigs(store, new Map(options.defaults ?? []), (t) => log.reconfigureTopic(t));
  const topic = new OffsetsTopic(
    {
      config: { maxPartitionsPerRequest: 10_000, maxBrokerPartitions: 120_000 },
      log,
      topicConfigs: configs,
      logger: SILENT,
    },
    {
      partitions: options.partitions,
      ...(options.segmentBytes === undefined ? {} : { segmentBytes: options.segmentBytes }),
    },
    options.now,
  );
  return { log, configs, topic };
}
