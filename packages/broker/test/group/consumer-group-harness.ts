// A group coordinator over real `__consumer_offsets` files, loaded from them as `klog serve` loads them, and
// a consumer-protocol heartbeat that must succeed: shared by the coordinator's consumer-group tests.
import { TopicConfigStore } from '../../src/config/topic-config-store.js';
import { TopicConfigs } from '../../src/config/topic-configs.js';
import {
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  GroupCoordinator,
} from '../../src/group/group-coordinator.js';
import type { GroupCoordinatorConfig } from '../../src/group/group-coordinator-config.js';
import { OffsetsTopic } from '../../src/group/offsets-topic.js';
import { openBrokerLog, syncDirectory } from '../../src/log/log-port.js';
import { SILENT } from '../../src/logging/logger.js';
import { BROKER_DIR, brokerDir } from '../../src/state/broker-dir.js';
import { FakeTimer } from '../support/fake-timer.js';
import { type FakeImage, heartbeatRequest, TEST_CLIENT } from './modern/harness.js';

/** A coordinator over real `__consumer_offsets` files in `dir`, loaded from them as `klog serve` does. */
export function open(
  dir: string,
  image: FakeImage,
  timer = new FakeTimer(),
  config: Partial<GroupCoordinatorConfig> = {},
) {
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
  configs = new TopicConfigs(store, new Map(), (t) => log.reconfigureTopic(t));
  const topic = new OffsetsTopic(
    {
      config: { maxPartitionsPerRequest: 10_000, maxBrokerPartitions: 120_000 },
      log,
      topicConfigs: configs,
      logger: SILENT,
    },
    { partitions: 1 },
    () => timer.now(),
  );
  const lines: string[] = [];
  let n = 0;
  const coordinator = new GroupCoordinator(
    timer,
    topic,
    { groupInitialRebalanceDelayMs: 0, ...config },
    () => true,
    () => `id${++n}`,
    (l) => lines.push(l),
    image,
  );
  const loaded = topic.load(coordinator);
  coordinator.loaded();
  return { log, topic, coordinator, timer, lines, loaded };
}

export const full = { rebalanceTimeoutMs: 30_000, subscribedTopicNames: ['t'], topicPartitions: [] };

export function heartbeat(
  c: GroupCoordinator,
  req: Partial<ConsumerGroupHeartbeatRequest>,
): Extract<ConsumerGroupHeartbeatResponse, { kind: 'ok' }> {
  const r = c.consumerGroupHeartbeat(heartbeatRequest({ groupId: 'g', ...req }), TEST_CLIENT);
  if (r.kind !== 'ok') throw new Error(`heartbeat: ${r.code} ${r.message}`);
  return r;
}
