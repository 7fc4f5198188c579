import type { TopicPartitionsMap } from '../assignor/partition-assignor.js';

/** The wire and record form of an assignment: `[{topicId, partitions}]` (Kafka's `TopicPartitions` arrays). */
export type TopicPartitions = readonly { readonly topicId: string; readonly partitions: readonly number[] }[];

export const EMPTY_ASSIGNMENT: TopicPartitionsMap = new Map();

/** Record form → map (Kafka's `ConsumerGroupMember.assignmentFromTopicPartitions`); empty lists dropped. */
export function fromTopicPartitions(tps: TopicPartitions | null | undefined): TopicPartitionsMap {
  const out = new Map<string, Set<number>>();
  for (const tp of tps ?? []) {
    if (tp.partitions.length === 0) continue;
    const s = out.get(tp.topicId) ?? new Set<number>();
    for (const p of tp.partitions) s.add(p);
    out.set(tp.topicId, s);
  }
  return out;
}

/** Map → record form, topics and partitions sorted so equal assignments encode to equal bytes. */
export function toTopicPartitions(a: TopicPartitionsMap): { topicId: string; partitions: number[] }[] {
  return [...a]
    .filter(([, ps]) => ps.size > 0)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([topicId, ps]) => ({ topicId, partitions: [...ps].sort((a, b) => a - b) }));
}

export function assignmentEquals(a: TopicPartitionsMap, b: TopicPartitionsMap): boolean {
  const size = (m: TopicPartitionsMap) => [...m.values()].filter((s) => s.size > 0).length;
  if (size(a) !== size(b)) return false;
  for (const [t, ps] of a) {
    if (ps.size === 0) continue;
    const qs = b.get(t);
    if (qs === undefined || qs.size !== ps.size) return false;
    for (const p of ps) if (!qs.has(p)) return false;
  }
  return true;
}

export function assignmentSize(a: TopicPartitionsMap): number {
  let n = 0;
  for (const ps of a.values()) n += ps.size;
  return n;
}
