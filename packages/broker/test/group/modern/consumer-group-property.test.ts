import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TopicPartitions } from '../../../src/group/modern/assignment.js';
import { isReconciledTo } from '../../../src/group/modern/consumer/consumer-group-member.js';
import type { ConsumerGroupHeartbeatResponse } from '../../../src/group/modern/consumer/consumer-group-ops.js';
import { Coordinator, FakeImage } from './harness.js';

/*
 * The consumer-group engine against simulated clients (design plan §5.5). A client adopts every assignment it
 * receives at once (dropping what is gone) and reports what it owns; a killed client stops heartbeating
 * while time passes the session timeout. Invariants checked:
 *  1. the partitions live clients believe they own are pairwise disjoint after every step;
 *  2. the engine never throws (its double-owner check is an IllegalState);
 *  3. after a quiescent round every partition of every subscribed topic is owned by exactly one live client
 *     subscribed to it;
 *  5. a restart (replay of the log) with no topic change bumps no epoch: the group epoch stays and every
 *     reconciled member keeps its epoch on its next heartbeat.
 */

const SESSION_MS = 45_000;
const STEP_MS = 10_000;
const SUBSCRIPTIONS = [{ names: ['t1'] }, { names: ['t1', 't2'] }, { regex: 't.*' }] as const;

interface Client {
  memberId: string;
  epoch: number;
  instanceId: string | null;
  topics: Set<string>;
  owned: TopicPartitions;
  alive: boolean;
}

type Command =
  | { kind: 'join'; sub: number; instance: number | null }
  | { kind: 'heartbeat'; who: number }
  | { kind: 'leave'; who: number }
  | { kind: 'staticLeave'; who: number }
  | { kind: 'kill'; who: number }
  | { kind: 'addPartitions'; topic: 't1' | 't2' }
  | { kind: 'restart' };

const who = fc.nat({ max: 7 });
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('join' as const),
      sub: fc.nat({ max: 2 }),
      instance: fc.option(fc.nat({ max: 2 }), { nil: null }),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('heartbeat' as const), who }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), who }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('staticLeave' as const), who }) },
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

class Simulation {
  c: Coordinator;
  readonly image = new FakeImage();
  readonly clients: Client[] = [];

  constructor() {
    this.image.create('t1', 3);
    this.image.create('t2', 2);
    this.image.create('x', 1);
    this.c = new Coordinator(this.image);
  }

  live(): Client[] {
    return this.clients.filter((k) => k.alive);
  }

  pick(who: number): Client | undefined {
    const live = this.live();
    return live.length === 0 ? undefined : live[who % live.length];
  }

  #adopt(k: Client, r: ConsumerGroupHeartbeatResponse): void {
    if (r.kind !== 'ok') throw new Error(`client ${k.memberId} got ${r.code}: ${r.message}`);
    k.memberId = r.memberId;
    k.epoch = r.memberEpoch;
    if (r.assignment !== null)
      k.owned = r.assignment.map((tp) => ({ topicId: tp.topicId, partitions: [...tp.partitions] }));
  }

  join(sub: number, instance: number | null): void {
    const s = SUBSCRIPTIONS[sub]!;
    const instanceId = instance === null ? null : `i${instance}`;
    if (instanceId !== null && this.live().some((k) => k.instanceId === instanceId)) {
      // Kafka refuses a second holder of a live instance id.
      const r = this.c.heartbeat({
        groupId: 'g',
        instanceId,
        ...this.#sub(s),
        rebalanceTimeoutMs: 60_000,
        topicPartitions: [],
      });
      expect(r).toMatchObject({ kind: 'error', code: 'UNRELEASED_INSTANCE_ID' });
      return;
    }
    const k: Client = {
      memberId: '',
      epoch: 0,
      instanceId,
      topics: new Set('names' in s ? s.names : ['t1', 't2']),
      owned: [],
      alive: true,
    };
    const r = this.c.heartbeat({
      groupId: 'g',
      instanceId,
      ...this.#sub(s),
      rebalanceTimeoutMs: 60_000,
      topicPartitions: [],
    });
    if (r.kind === 'error' && r.code === 'UNRELEASED_INSTANCE_ID') return; // a static member still in its session
    this.#adopt(k, r);
    this.clients.push(k);
  }

  #sub(s: (typeof SUBSCRIPTIONS)[number]) {
    // As Kafka's consumer: switching kinds clears the other (empty names, empty regex).
    return 'names' in s
      ? { subscribedTopicNames: [...s.names], subscribedTopicRegex: '' }
      : { subscribedTopicNames: [], subscribedTopicRegex: s.regex };
  }

  heartbeat(k: Client): ConsumerGroupHeartbeatResponse {
    const r = this.c.heartbeat({
      groupId: 'g',
      memberId: k.memberId,
      memberEpoch: k.epoch,
      instanceId: k.instanceId,
      topicPartitions: k.owned,
    });
    this.#adopt(k, r);
    return r;
  }

  leave(k: Client, epoch: -1 | -2): void {
    const r = this.c.heartbeat({
      groupId: 'g',
      memberId: k.memberId,
      memberEpoch: epoch,
      instanceId: k.instanceId,
    });
    expect(r).toMatchObject({ kind: 'ok', memberEpoch: epoch });
    k.alive = false;
    k.owned = [];
  }

  /** Time passes in steps; live clients heartbeat at each, dead ones do not. */
  passTime(ms: number): void {
    for (let t = 0; t < ms; t += STEP_MS) {
      for (const k of this.live()) this.heartbeat(k);
      this.c.timer.advance(Math.min(STEP_MS, ms - t));
    }
  }

  /** Heartbeats until nothing changes, with enough time for every dead member's session to expire. */
  quiesce(): void {
    this.passTime(SESSION_MS + STEP_MS);
    let same = 0;
    for (let round = 0; round < 50 && same < 2; round++) {
      const before = JSON.stringify(this.live().map((k) => [k.memberId, k.epoch, k.owned]));
      for (const k of this.live()) this.heartbeat(k);
      same = JSON.stringify(this.live().map((k) => [k.memberId, k.epoch, k.owned])) === before ? same + 1 : 0;
    }
    expect(same).toBe(2);
  }

  restart(): void {
    // Topic changes made before the restart are the old coordinator's to absorb: one round first.
    for (const k of this.live()) this.heartbeat(k);
    const g = this.c.groups.get('g');
    const epoch = g?.groupEpoch;
    const reconciled = new Set(
      g === undefined
        ? []
        : [...g.members.values()].filter((m) => isReconciledTo(m, g.assignmentEpoch)).map((m) => m.memberId),
    );
    this.c = this.c.restart();
    for (const k of this.live()) {
      const before = k.epoch;
      this.heartbeat(k);
      if (reconciled.has(k.memberId)) expect(k.epoch).toBe(before);
    }
    expect(this.c.groups.get('g')?.groupEpoch).toBe(epoch);
  }

  assertDisjoint(): void {
    const seen = new Map<string, string>();
    for (const k of this.live())
      for (const tp of k.owned)
        for (const p of tp.partitions) {
          const key = `${this.image.topicName(tp.topicId)}-${p}`;
          expect(seen.get(key), `${key} owned by ${seen.get(key)} and ${k.memberId}`).toBeUndefined();
          seen.set(key, k.memberId);
        }
  }

  assertCovered(): void {
    const owner = new Map<string, Client>();
    for (const k of this.live())
      for (const tp of k.owned)
        for (const p of tp.partitions) owner.set(`${this.image.topicName(tp.topicId)}-${p}`, k);
    const subscribed = new Set(this.live().flatMap((k) => [...k.topics]));
    for (const [topic, n] of this.image.topics()) {
      if (!subscribed.has(topic)) continue;
      for (let p = 0; p < n; p++) {
        const k = owner.get(`${topic}-${p}`);
        expect(k, `${topic}-${p} has no owner`).toBeDefined();
        expect(k!.topics.has(topic)).toBe(true);
      }
    }
  }
}

function run(commands: Command[]): void {
  const s = new Simulation();
  for (const cmd of commands) {
    switch (cmd.kind) {
      case 'join':
        s.join(cmd.sub, cmd.instance);
        break;
      case 'heartbeat': {
        const k = s.pick(cmd.who);
        if (k !== undefined) s.heartbeat(k);
        break;
      }
      case 'leave': {
        const k = s.pick(cmd.who);
        if (k !== undefined) s.leave(k, -1);
        break;
      }
      case 'staticLeave': {
        const k = s.pick(cmd.who);
        if (k?.instanceId != null) s.leave(k, -2);
        break;
      }
      case 'kill': {
        const k = s.pick(cmd.who);
        if (k === undefined) break;
        k.alive = false;
        s.passTime(SESSION_MS + STEP_MS);
        break;
      }
      case 'addPartitions':
        s.image.addPartitions(cmd.topic, 1);
        break;
      case 'restart':
        s.restart();
        break;
    }
    s.assertDisjoint();
  }
  s.quiesce();
  s.assertDisjoint();
  s.assertCovered();
}

describe('consumer group engine, property over ops and replay', () => {
  it('owned sets stay disjoint, a quiet group covers every partition, a restart bumps no epoch', () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 40 }), (commands) => run(commands)),
      { numRuns: 150 },
    );
  });

  it('a fixed scenario: three joins, a kill, partitions added, a restart', () => {
    run([
      { kind: 'join', sub: 0, instance: null },
      { kind: 'join', sub: 1, instance: 0 },
      { kind: 'join', sub: 2, instance: null },
      { kind: 'heartbeat', who: 0 },
      { kind: 'kill', who: 1 },
      { kind: 'addPartitions', topic: 't2' },
      { kind: 'restart' },
    ]);
  });
});
