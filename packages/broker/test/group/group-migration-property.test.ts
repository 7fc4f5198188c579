import {
  consumerSubscriptionTopics,
  decodeConsumerProtocolAssignment,
  encodeConsumerProtocolAssignment,
  Writer,
} from '@klog/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JoinResult } from '../../src/group/classic/classic-group.js';
import type { GroupCoordinator } from '../../src/group/group-coordinator.js';
import type { TopicPartitions } from '../../src/group/modern/assignment.js';
import { tempDir } from '../support/broker.js';
import { FakeTimer } from '../support/fake-timer.js';
import { open } from './consumer-group-harness.js';
import { FakeImage, heartbeatRequest, TEST_CLIENT } from './modern/harness.js';

/*
 * One group, clients of both protocols, on the coordinator over real `__consumer_offsets` files, under Kafka
 * 4.1's default migration policy (bidirectional): the group is classic, consumer, and classic again as its
 * members come and go. Consumer-protocol clients adopt every assignment at once and report what they own;
 * classic clients are eager (as KafkaJS and a Java consumer with the range assignor): they give up all they
 * own before each JoinGroup, rejoin when a Heartbeat or SyncGroup says so, and the leader of a classic
 * generation assigns each topic's partitions round robin among the members subscribed to it. A killed
 * client stops; time passes in steps at which every live client heartbeats. Checked after every step: the
 * partitions live clients believe they own are pairwise disjoint; the coordinator never throws. After a
 * quiet spell: every partition of a subscribed topic has exactly one owner, subscribed to it.
 * It found that a downgrade must record what each member owns, not its target (group-conversion.ts).
 */

const SESSION_MS = 45_000;
const STEP_MS = 10_000;
const TOPICS = [['t1'], ['t1', 't2']] as const;

type Owned = Set<string>;

interface ConsumerClient {
  readonly kind: 'consumer';
  readonly name: string;
  memberId: string;
  epoch: number;
  readonly topics: readonly string[];
  owned: TopicPartitions;
  alive: boolean;
}

interface ClassicClient {
  readonly kind: 'classic';
  readonly name: string;
  memberId: string;
  generation: number;
  readonly topics: readonly string[];
  owned: Owned;
  alive: boolean;
  /** A JoinGroup or SyncGroup is out. */
  busy: boolean;
  /** It must join again before it may heartbeat. */
  mustJoin: boolean;
  /**
   * As leader, the partition counts it assigned (Java's `assignmentSnapshot`): a change is seen at its next
   * poll and it rejoins, which starts a rebalance (the broker does not watch a classic group's topics).
   */
  assigned: string | null;
}

type Client = ConsumerClient | ClassicClient;

type Command =
  | { kind: 'join'; classic: boolean; sub: number }
  | { kind: 'heartbeat'; who: number }
  | { kind: 'leave'; who: number }
  | { kind: 'kill'; who: number }
  | { kind: 'tick' }
  | { kind: 'addPartitions'; topic: 't1' | 't2' }
  | { kind: 'restart' };

const who = fc.nat({ max: 7 });
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('join' as const),
      classic: fc.boolean(),
      sub: fc.nat({ max: 1 }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('heartbeat' as const), who }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'tick' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), who }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('kill' as const), who }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('addPartitions' as const),
      topic: fc.constantFrom('t1' as const, 't2' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

function subscription(topics: readonly string[]): Uint8Array {
  const w = new Writer().int16(0, 'version').arrayLength(topics.length, 'topics');
  for (const t of topics) w.string(t, 'topic');
  return w.nullableBytes(null, 'userData').toBytes();
}

/** Lets the coordinator's answered promises run their callbacks (joins and syncs complete). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
};

class Simulation {
  readonly image = new FakeImage();
  readonly timer = new FakeTimer();
  readonly clients: Client[] = [];
  /** What failed inside an answer's callback (a JoinGroup's or SyncGroup's), thrown by `run` after the step. */
  readonly errors: unknown[] = [];
  readonly #dir = tempDir('klog-migration-property-');
  #b: ReturnType<typeof open>;
  #n = 0;

  constructor() {
    this.image.create('t1', 3);
    this.image.create('t2', 2);
    this.#b = open(this.#dir.dir, this.image, this.timer);
  }

  get c(): GroupCoordinator {
    return this.#b.coordinator;
  }

  close(): void {
    this.#b.coordinator.close();
    this.#b.log.close();
    this.#dir.remove();
  }

  live(): Client[] {
    return this.clients.filter((k) => k.alive);
  }

  pick(n: number): Client | undefined {
    const live = this.live();
    return live.length === 0 ? undefined : live[n % live.length];
  }

  join(classic: boolean, sub: number): void {
    const topics = TOPICS[sub]!;
    const name = `${classic ? 'classic' : 'consumer'}-${++this.#n}`;
    if (classic) {
      const k: ClassicClient = {
        kind: 'classic',
        name,
        memberId: '',
        generation: -1,
        topics,
        owned: new Set(),
        alive: true,
        busy: false,
        mustJoin: false,
        assigned: null,
      };
      this.clients.push(k);
      this.#classicJoin(k);
    } else {
      const k: ConsumerClient = {
        kind: 'consumer',
        name,
        memberId: '',
        epoch: 0,
        topics,
        owned: [],
        alive: true,
      };
      this.clients.push(k);
      this.#consumerHeartbeat(k, true);
    }
  }

  heartbeat(k: Client): void {
    if (k.kind === 'consumer') this.#consumerHeartbeat(k, false);
    else this.#classicHeartbeat(k);
  }

  leave(k: Client): void {
    if (k.kind === 'consumer') {
      if (k.memberId !== '') {
        const r = this.c.consumerGroupHeartbeat(
          heartbeatRequest({ groupId: 'g', memberId: k.memberId, memberEpoch: -1 }),
          TEST_CLIENT,
        );
        // It may have been fenced already (the group is classic again, or it is unknown): it leaves anyway.
        if (r.kind === 'ok') expect(r.memberEpoch).toBe(-1);
      }
    } else if (k.memberId !== '' && !k.busy)
      this.c.leave('g', [{ memberId: k.memberId, groupInstanceId: null }]);
    else if (k.busy) return; // a client inside a JoinGroup leaves after it
    k.alive = false;
    k.owned = k.kind === 'consumer' ? [] : new Set();
  }

  #consumerHeartbeat(k: ConsumerClient, first: boolean): void {
    const r = this.c.consumerGroupHeartbeat(
      {
        groupId: 'g',
        memberId: k.memberId,
        memberEpoch: k.epoch,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: k.epoch === 0 || first ? 60_000 : -1,
        subscribedTopicNames: k.epoch === 0 || first ? [...k.topics] : null,
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: k.owned,
      },
      TEST_CLIENT,
    );
    if (r.kind === 'error') {
      // Fenced, or the group became classic under it (it was fenced, and the others are classic): what
      // Kafka's consumer does, drop all and join again (epoch 0). An upgrade is never refused here.
      const expected =
        r.code === 'GROUP_ID_NOT_FOUND'
          ? k.epoch > 0 && r.message === 'Group g is not a consumer group.'
          : r.code === 'FENCED_MEMBER_EPOCH' || r.code === 'UNKNOWN_MEMBER_ID';
      expect(expected, `${k.name} at epoch ${k.epoch}: ${r.code}: ${r.message}`).toBe(true);
      k.owned = [];
      k.epoch = 0;
      return;
    }
    k.memberId = r.memberId;
    k.epoch = r.memberEpoch;
    if (r.assignment !== null)
      k.owned = r.assignment.map((tp) => ({ topicId: tp.topicId, partitions: [...tp.partitions] }));
  }

  #classicHeartbeat(k: ClassicClient): void {
    if (k.busy) return;
    if (k.mustJoin || k.memberId === '' || (k.assigned !== null && k.assigned !== this.#counts())) {
      this.#classicJoin(k);
      return;
    }
    const error = this.c.heartbeat({
      groupId: 'g',
      generationId: k.generation,
      memberId: k.memberId,
      groupInstanceId: null,
    });
    if (error === 'NONE') return;
    expect([
      'REBALANCE_IN_PROGRESS',
      'UNKNOWN_MEMBER_ID',
      'ILLEGAL_GENERATION',
      'FENCED_INSTANCE_ID',
    ]).toContain(error);
    if (error === 'UNKNOWN_MEMBER_ID') k.memberId = '';
    this.#classicJoin(k);
  }

  /** Eager: everything is given up before the JoinGroup; the answer, and the SyncGroup, come when they come. */
  #classicJoin(k: ClassicClient): void {
    k.owned = new Set();
    k.busy = true;
    k.mustJoin = false;
    k.assigned = null;
    const c = this.c;
    void c
      .join({
        groupId: 'g',
        memberId: k.memberId,
        groupInstanceId: null,
        sessionTimeoutMs: SESSION_MS,
        rebalanceTimeoutMs: 60_000,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: subscription(k.topics) }],
        clientId: k.name,
        clientHost: '/127.0.0.1',
        requireKnownMemberId: true,
      })
      .then((r) => this.#joined(k, r))
      .catch((e: unknown) => this.errors.push(e));
  }

  #joined(k: ClassicClient, r: JoinResult): void {
    if (!k.alive) return;
    if (r.errorCode === 'MEMBER_ID_REQUIRED') {
      k.memberId = r.memberId;
      k.busy = false;
      this.#classicJoin(k);
      return;
    }
    if (r.errorCode !== 'NONE') {
      expect([
        'REBALANCE_IN_PROGRESS',
        'UNKNOWN_MEMBER_ID',
        'NOT_COORDINATOR',
        'ILLEGAL_GENERATION',
      ]).toContain(r.errorCode);
      if (r.errorCode === 'UNKNOWN_MEMBER_ID') k.memberId = '';
      k.busy = false;
      k.mustJoin = true;
      return;
    }
    k.memberId = r.memberId;
    k.generation = r.generationId;
    const assignments = r.leader === k.memberId ? this.#assign(r.members) : [];
    if (r.leader === k.memberId) k.assigned = this.#counts();
    void this.c
      .sync({
        groupId: 'g',
        generationId: k.generation,
        memberId: k.memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments,
      })
      .then((s) => {
        k.busy = false;
        if (!k.alive) return;
        if (s.errorCode !== 'NONE') {
          expect([
            'REBALANCE_IN_PROGRESS',
            'UNKNOWN_MEMBER_ID',
            'ILLEGAL_GENERATION',
            'NOT_COORDINATOR',
          ]).toContain(s.errorCode);
          if (s.errorCode === 'UNKNOWN_MEMBER_ID') k.memberId = '';
          k.mustJoin = true;
          return;
        }
        k.owned = new Set(
          decodeConsumerProtocolAssignment(s.assignment).assignedPartitions.flatMap((tp) =>
            tp.partitions.map((p) => `${tp.topic}-${p}`),
          ),
        );
      })
      .catch((e: unknown) => this.errors.push(e));
  }

  #counts(): string {
    return JSON.stringify([...this.image.topics()]);
  }

  /** A classic leader's assignor: each topic's partitions round robin over the members subscribed to it. */
  #assign(members: JoinResult['members']): { memberId: string; assignment: Uint8Array }[] {
    const byMember = new Map<string, Map<string, number[]>>(members.map((m) => [m.memberId, new Map()]));
    for (const [topic, n] of this.image.topics()) {
      const subscribed = members.filter((m) => consumerSubscriptionTopics(m.metadata)?.includes(topic));
      for (let p = 0; p < n && subscribed.length > 0; p++) {
        const m = byMember.get(subscribed[p % subscribed.length]!.memberId)!;
        m.set(topic, [...(m.get(topic) ?? []), p]);
      }
    }
    return [...byMember].map(([memberId, a]) => ({
      memberId,
      assignment: encodeConsumerProtocolAssignment(
        { assignedPartitions: [...a].map(([topic, partitions]) => ({ topic, partitions })), userData: null },
        0,
      ),
    }));
  }

  async passTime(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += STEP_MS) {
      for (const k of this.live()) this.heartbeat(k);
      await settle();
      this.timer.advance(Math.min(STEP_MS, ms - t));
      await settle();
    }
  }

  /**
   * The coordinator closes and loads `__consumer_offsets` again. Not while a classic group rebalances: its
   * record says Stable (Kafka's `ClassicGroup.fromRecord`), so a restart then loses the rebalance, as
   * Kafka's coordinator moving does; after a downgrade, the partitions of the member whose leaving caused
   * it would stay unassigned until the membership changes again. The simulation lets the rebalance finish.
   */
  async restart(): Promise<void> {
    for (let i = 0; i < 20 && !['Stable', 'Empty', undefined].includes(this.c.group('g')?.state); i++)
      await this.passTime(STEP_MS);
    this.#b.coordinator.close();
    this.#b.log.close();
    await settle();
    this.#b = open(this.#dir.dir, this.image, this.timer);
  }

  ownedKeys(k: Client): string[] {
    if (k.kind === 'classic') return [...k.owned];
    return k.owned.flatMap((tp) => tp.partitions.map((p) => `${this.image.topicName(tp.topicId)}-${p}`));
  }

  assertDisjoint(): void {
    const seen = new Map<string, string>();
    for (const k of this.live())
      for (const key of this.ownedKeys(k)) {
        expect(seen.get(key), `${key} owned by ${seen.get(key)} and ${k.name}`).toBeUndefined();
        seen.set(key, k.name);
      }
  }

  async quiesce(): Promise<void> {
    await this.passTime(SESSION_MS + STEP_MS);
    let same = 0;
    for (let round = 0; round < 60 && same < 3; round++) {
      const before = JSON.stringify(this.live().map((k) => [k.name, this.ownedKeys(k)]));
      await this.passTime(STEP_MS);
      this.assertDisjoint();
      const busy = this.live().some((k) => k.kind === 'classic' && (k.busy || k.mustJoin));
      same =
        !busy && JSON.stringify(this.live().map((k) => [k.name, this.ownedKeys(k)])) === before
          ? same + 1
          : 0;
    }
    expect(same, 'the group to settle').toBe(3);
  }

  assertCovered(): void {
    const owner = new Map<string, Client>();
    for (const k of this.live()) for (const key of this.ownedKeys(k)) owner.set(key, k);
    const subscribed = new Set(this.live().flatMap((k) => [...k.topics]));
    for (const [topic, n] of this.image.topics()) {
      if (!subscribed.has(topic)) continue;
      for (let p = 0; p < n; p++) {
        const k = owner.get(`${topic}-${p}`);
        expect(k, `${topic}-${p} has no owner`).toBeDefined();
        expect(k!.topics.includes(topic)).toBe(true);
      }
    }
  }
}

async function run(commands: Command[]): Promise<void> {
  const s = new Simulation();
  try {
    for (const cmd of commands) {
      switch (cmd.kind) {
        case 'join':
          s.join(cmd.classic, cmd.sub);
          break;
        case 'heartbeat': {
          const k = s.pick(cmd.who);
          if (k !== undefined) s.heartbeat(k);
          break;
        }
        case 'leave': {
          const k = s.pick(cmd.who);
          if (k !== undefined) s.leave(k);
          break;
        }
        case 'kill': {
          const k = s.pick(cmd.who);
          if (k === undefined) break;
          k.alive = false;
          await s.passTime(SESSION_MS + STEP_MS);
          break;
        }
        case 'tick':
          await s.passTime(STEP_MS);
          break;
        case 'addPartitions':
          s.image.addPartitions(cmd.topic, 1);
          break;
        case 'restart':
          await s.restart();
          break;
      }
      await settle();
      if (s.errors.length > 0) throw s.errors[0];
      s.assertDisjoint();
    }
    await s.quiesce();
    if (s.errors.length > 0) throw s.errors[0];
    s.assertDisjoint();
    s.assertCovered();
  } finally {
    s.close();
  }
}

describe('one group, both protocols, online migration: property over joins, leaves, kills and restarts', () => {
  it('owned sets stay disjoint at every step; a quiet group covers every partition', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 8, maxLength: 40, size: 'max' }), (commands) =>
        run(commands),
      ),
      { numRuns: 200 },
    );
  }, 600_000);

  it('a fixed scenario: classic, upgrade, downgrade, a restart in between', async () => {
    await run([
      { kind: 'join', classic: true, sub: 1 },
      { kind: 'tick' },
      { kind: 'join', classic: false, sub: 0 },
      { kind: 'tick' },
      { kind: 'join', classic: true, sub: 0 },
      { kind: 'restart' },
      { kind: 'tick' },
      { kind: 'leave', who: 1 },
      { kind: 'tick' },
      { kind: 'addPartitions', topic: 't2' },
    ]);
  });
});
