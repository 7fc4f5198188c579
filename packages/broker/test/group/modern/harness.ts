import type { TopicPartitions } from '../../../src/group/modern/assignment.js';
import type { ConsumerGroup } from '../../../src/group/modern/consumer/consumer-group.js';
import {
  type ConsumerGroupConfig,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  ConsumerGroupOps,
} from '../../../src/group/modern/consumer/consumer-group-ops.js';
import { replayConsumerGroupRecord } from '../../../src/group/modern/consumer/consumer-group-replay.js';
import type { ConsumerGroupRecord } from '../../../src/group/modern/consumer/consumer-record-helpers.js';
import type { TopicsImage } from '../../../src/group/modern/topics-image.js';
import { FakeTimer } from '../../support/fake-timer.js';

/** A topics image the test edits: create a topic or add partitions, and `topicsVersion` moves. */
export class FakeImage implements TopicsImage {
  topicsVersion = 0;
  readonly #topics = new Map<string, number>();
  readonly #ids = new Map<string, string>();

  create(name: string, partitions: number): void {
    const n = this.#ids.size + 1;
    this.#ids.set(name, `00000000-0000-0000-0000-${n.toString(16).padStart(12, '0')}`);
    this.#topics.set(name, partitions);
    this.topicsVersion++;
  }

  addPartitions(name: string, count: number): void {
    this.#topics.set(name, (this.#topics.get(name) ?? 0) + count);
    this.topicsVersion++;
  }

  topics(): ReadonlyMap<string, number> {
    return this.#topics;
  }

  topicId(name: string): string | undefined {
    return this.#ids.get(name);
  }

  topicName(id: string): string | undefined {
    for (const [n, i] of this.#ids) if (i === id) return n;
    return undefined;
  }
}

export const CONFIG: ConsumerGroupConfig = {
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 5_000,
  assignors: ['uniform', 'range'],
  maxSize: 1000,
};

/**
 * A coordinator in miniature: the records every op returns are appended to `log` and replayed (the runtime's
 * write), and `restart()` builds a fresh one by replaying `log`, as a coordinator loading
 * `__consumer_offsets` does.
 */
export class Coordinator {
  readonly log: ConsumerGroupRecord[];
  readonly groups = new Map<string, ConsumerGroup>();
  readonly timer: FakeTimer;
  readonly image: FakeImage;
  readonly ops: ConsumerGroupOps;
  readonly logLines: string[] = [];
  /** Shared across restarts: member ids stay unique, as Kafka's random ones are. */
  readonly #ids: { n: number };

  constructor(
    image: FakeImage,
    log: ConsumerGroupRecord[] = [],
    timer = new FakeTimer(),
    config = CONFIG,
    ids = { n: 0 },
  ) {
    this.image = image;
    this.#ids = ids;
    this.log = log;
    this.timer = timer;
    this.ops = new ConsumerGroupOps({
      groups: this.groups,
      timer,
      config,
      image,
      write: (_g, records) => this.#write(records),
      newMemberId: () => `m${++this.#ids.n}`,
      log: (l) => this.logLines.push(l),
    });
    for (const r of log) this.#replay(r);
    this.ops.onLoaded();
  }

  #replay(r: ConsumerGroupRecord): void {
    const removed = replayConsumerGroupRecord(this.groups, r);
    if (removed !== undefined) this.ops.onGroupRemoved(removed);
  }

  #write(records: readonly ConsumerGroupRecord[]): void {
    for (const r of records) {
      this.log.push(r);
      this.#replay(r);
    }
  }

  heartbeat(
    req: Partial<ConsumerGroupHeartbeatRequest> & { groupId: string },
  ): ConsumerGroupHeartbeatResponse {
    const result = this.ops.heartbeat(heartbeatRequest(req), TEST_CLIENT);
    this.#write(result.records);
    return result.response;
  }

  /** A new coordinator over the same log (a restart): the timer is a fresh clock at the same time. */
  restart(): Coordinator {
    this.timer.cancelAll();
    return new Coordinator(this.image, this.log, new FakeTimer(this.timer.now()), CONFIG, this.#ids);
  }
}

/** The client every test heartbeat comes from. */
export const TEST_CLIENT = { clientId: 'test', clientHost: '/127.0.0.1' } as const;

/** A ConsumerGroupHeartbeat as a joining client sends it (epoch 0, no id), with `req`'s fields over it. */
export function heartbeatRequest(
  req: Partial<ConsumerGroupHeartbeatRequest> & { groupId: string },
): ConsumerGroupHeartbeatRequest {
  return {
    memberId: '',
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    subscribedTopicNames: null,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: null,
    ...req,
  };
}

/** Assignment as `{topic: partitions}` via the image, for readable assertions. */
export function byName(image: TopicsImage, tps: TopicPartitions | null): Record<string, number[]> | null {
  if (tps === null) return null;
  const out: Record<string, number[]> = {};
  for (const tp of tps)
    out[image.topicName(tp.topicId) ?? tp.topicId] = [...tp.partitions].sort((a, b) => a - b);
  return out;
}
