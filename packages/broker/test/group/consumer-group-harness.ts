// A group coordinator over real `__consumer_offsets` files, loaded from them as `klog serve` loads them, and
// a consumer-protocol heartbeat that must succeed: shared by the coordinator's consumer-group tests.
import {
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  GroupCoordinator,
} from '../../src/group/group-coordinator.js';
import type { GroupCoordinatorConfig } from '../../src/group/group-coordinator-config.js';
import { FakeTimer } from '../support/fake-timer.js';
import { openOffsetsLog } from '../support/offsets-log.js';
import { type FakeImage, heartbeatRequest, TEST_CLIENT } from './modern/harness.js';

/** A coordinator over real `__consumer_offsets` files in `dir`, loaded from them as `klog serve` does. */
export function open(
  dir: string,
  image: FakeImage,
  timer = new FakeTimer(),
  config: Partial<GroupCoordinatorConfig> = {},
) {
  const { log, topic } = openOffsetsLog(dir, { partitions: 1, now: () => timer.now() });
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
