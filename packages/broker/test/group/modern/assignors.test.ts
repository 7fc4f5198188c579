import { describe, expect, it } from 'vitest';
import {
  type GroupSpec,
  type MemberSubscriptionAndAssignment,
  RangeAssignor,
  type SubscriptionType,
  type TopicPartitionsMap,
  UniformAssignor,
} from '../../../src/group/assignor/index.js';

const T1 = '00000000-0000-0000-0000-0000000000a1';
const T2 = '00000000-0000-0000-0000-0000000000a2';
const describer = (counts: Record<string, number>) => ({ numPartitions: (id: string) => counts[id] ?? -1 });

function member(
  topics: string[],
  assignment: Record<string, number[]> = {},
  instanceId: string | null = null,
): MemberSubscriptionAndAssignment {
  return {
    instanceId,
    rackId: null,
    subscribedTopicIds: new Set(topics),
    assignment: new Map(Object.entries(assignment).map(([t, ps]) => [t, new Set(ps)])),
  };
}

function spec(
  members: Record<string, MemberSubscriptionAndAssignment>,
  type: SubscriptionType = 'HOMOGENEOUS',
): GroupSpec {
  return { members: new Map(Object.entries(members)), subscriptionType: type };
}

function plain(a: ReadonlyMap<string, TopicPartitionsMap>): Record<string, Record<string, number[]>> {
  const out: Record<string, Record<string, number[]>> = {};
  for (const [m, tps] of a) {
    out[m] = {};
    for (const [t, ps] of tps) if (ps.size > 0) out[m][t] = [...ps].sort((x, y) => x - y);
  }
  return out;
}

function sizes(a: ReadonlyMap<string, TopicPartitionsMap>): number[] {
  return [...a.values()].map((tps) => [...tps.values()].reduce((n, s) => n + s.size, 0));
}

function assertExactCover(a: ReadonlyMap<string, TopicPartitionsMap>, counts: Record<string, number>): void {
  const seen = new Set<string>();
  for (const tps of a.values())
    for (const [t, ps] of tps)
      for (const p of ps) {
        expect(seen.has(`${t}:${p}`)).toBe(false);
        seen.add(`${t}:${p}`);
      }
  const want = Object.entries(counts).reduce((n, [, c]) => n + c, 0);
  expect(seen.size).toBe(want);
}

describe('RangeAssignor (Kafka RangeAssignorTest shapes)', () => {
  it('gives contiguous ranges per topic, the first members one extra', () => {
    const a = new RangeAssignor().assign(
      spec({ a: member([T1, T2]), b: member([T1, T2]) }),
      describer({ [T1]: 3, [T2]: 3 }),
    );
    expect(plain(a)).toEqual({ a: { [T1]: [0, 1], [T2]: [0, 1] }, b: { [T1]: [2], [T2]: [2] } });
  });

  it('sorts static members first, by instance id', () => {
    const a = new RangeAssignor().assign(
      spec({ a: member([T1]), b: member([T1], {}, 'i2'), c: member([T1], {}, 'i1') }),
      describer({ [T1]: 3 }),
    );
    expect(plain(a)).toEqual({ c: { [T1]: [0] }, b: { [T1]: [1] }, a: { [T1]: [2] } });
  });

  it('counts members per topic in a heterogeneous group', () => {
    const a = new RangeAssignor().assign(
      spec({ a: member([T1]), b: member([T1, T2]), c: member([T2]) }, 'HETEROGENEOUS'),
      describer({ [T1]: 3, [T2]: 2 }),
    );
    expect(plain(a)).toEqual({ a: { [T1]: [0, 1] }, b: { [T1]: [2], [T2]: [0] }, c: { [T2]: [1] } });
  });

  it('refuses a topic the describer does not know', () => {
    expect(() => new RangeAssignor().assign(spec({ a: member([T1]) }), describer({}))).toThrow(
      /non-existent topic/,
    );
  });
});

describe('UniformAssignor homogeneous (Kafka UniformHomogeneousAssignmentBuilder)', () => {
  it('balances within one partition and covers every partition once', () => {
    const a = new UniformAssignor().assign(
      spec({ a: member([T1, T2]), b: member([T1, T2]), c: member([T1, T2]) }),
      describer({ [T1]: 4, [T2]: 3 }),
    );
    assertExactCover(a, { [T1]: 4, [T2]: 3 });
    const s = sizes(a);
    expect(Math.max(...s) - Math.min(...s)).toBeLessThanOrEqual(1);
  });

  it('is sticky: a joining member takes only the excess of the others', () => {
    const counts = { [T1]: 6 };
    const first = new UniformAssignor().assign(spec({ a: member([T1]), b: member([T1]) }), describer(counts));
    expect(plain(first)).toEqual({ a: { [T1]: [0, 1, 2] }, b: { [T1]: [3, 4, 5] } });
    const second = new UniformAssignor().assign(
      spec({ a: member([T1], { [T1]: [0, 1, 2] }), b: member([T1], { [T1]: [3, 4, 5] }), c: member([T1]) }),
      describer(counts),
    );
    expect(plain(second)).toEqual({ a: { [T1]: [0, 1] }, b: { [T1]: [3, 4] }, c: { [T1]: [2, 5] } });
  });

  it('a member that keeps fewer than the extra slot gives it back to a later member', () => {
    // 7 partitions over 3: quotas 3,2,2. a holds 1 only, so it must not hold on to the extra slot.
    const a = new UniformAssignor().assign(
      spec({
        a: member([T1], { [T1]: [0] }),
        b: member([T1], { [T1]: [1, 2, 3] }),
        c: member([T1], { [T1]: [4, 5, 6] }),
      }),
      describer({ [T1]: 7 }),
    );
    assertExactCover(a, { [T1]: 7 });
    expect(plain(a)).toEqual({ a: { [T1]: [0, 6] }, b: { [T1]: [1, 2, 3] }, c: { [T1]: [4, 5] } });
  });

  it('drops a topic no longer subscribed', () => {
    const a = new UniformAssignor().assign(
      spec({ a: member([T1], { [T1]: [0], [T2]: [0] }) }),
      describer({ [T1]: 2, [T2]: 1 }),
    );
    expect(plain(a)).toEqual({ a: { [T1]: [0, 1] } });
  });
});

describe('UniformAssignor heterogeneous (klog sticky balance)', () => {
  it('assigns every subscribed partition to a subscriber only, and keeps owners', () => {
    const a = new UniformAssignor().assign(
      spec(
        { a: member([T1], { [T1]: [0, 1] }), b: member([T1, T2]), c: member([T2], { [T2]: [2] }) },
        'HETEROGENEOUS',
      ),
      describer({ [T1]: 4, [T2]: 3 }),
    );
    assertExactCover(a, { [T1]: 4, [T2]: 3 });
    const p = plain(a);
    expect(p.a?.[T2]).toBeUndefined();
    expect(p.c?.[T1]).toBeUndefined();
    expect(p.a?.[T1]).toEqual(expect.arrayContaining([0, 1]));
    expect(p.c?.[T2]).toEqual(expect.arrayContaining([2]));
  });
});
