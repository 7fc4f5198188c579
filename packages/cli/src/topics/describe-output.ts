import type { DescribeConfigsResponse } from '@klog/protocol';

/** Kafka's `ConfigEntry.ConfigSource` names, as kafka-configs.sh prints them, by DescribeConfigs' number. */
export const SOURCE_NAMES: Readonly<Record<number, string>> = {
  0: 'UNKNOWN',
  1: 'DYNAMIC_TOPIC_CONFIG',
  2: 'DYNAMIC_BROKER_CONFIG',
  3: 'DYNAMIC_DEFAULT_BROKER_CONFIG',
  4: 'STATIC_BROKER_CONFIG',
  5: 'DEFAULT_CONFIG',
  6: 'DYNAMIC_BROKER_LOGGER_CONFIG',
  7: 'DYNAMIC_CLIENT_METRICS_CONFIG',
  8: 'DYNAMIC_GROUP_CONFIG',
};

/** A topic id as Kafka prints a `Uuid`: URL-safe base64 of its 16 bytes, no padding. */
export function kafkaUuid(uuid: string): string {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex').toString('base64url');
}

export interface PartitionLine {
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

/** One topic as Kafka 4's `kafka-topics.sh --describe` prints it (TopicCommand.describeTopic). */
export function topicDescription(
  name: string,
  topicId: string,
  partitions: readonly PartitionLine[],
  configs: readonly { readonly name: string; readonly value: string | null }[],
): string[] {
  const rf = partitions[0]?.replicas.length ?? 0;
  const shown = configs.map((c) => `${c.name}=${c.value ?? ''}`).join(',');
  return [
    `Topic: ${name}\tTopicId: ${kafkaUuid(topicId)}\tPartitionCount: ${partitions.length}\tReplicationFactor: ${rf}\tConfigs: ${shown}`,
    ...partitions.map(
      (p) =>
        `\tTopic: ${name}\tPartition: ${p.partition}\tLeader: ${p.leader}\tReplicas: ${p.replicas.join(',')}\tIsr: ${p.isr.join(',')}\tElr: \tLastKnownElr: `,
    ),
  ];
}

/**
 * A topic's configs as `kafka-configs.sh --describe --entity-type topics` prints them: its dynamic
 * configs (its own), or with `all` every one, each with `sensitive=` and its synonyms.
 */
export function configsDescription(
  topic: string,
  entries: readonly DescribeConfigsResponse.DescribeConfigsResourceResult[],
  all: boolean,
): string[] {
  const listed = all ? entries : entries.filter((e) => e.configSource === 1);
  const line = (e: DescribeConfigsResponse.DescribeConfigsResourceResult) => {
    const synonyms = e.synonyms
      .map((s) => `${SOURCE_NAMES[s.source] ?? s.source}:${s.name}=${s.value ?? 'null'}`)
      .join(', ');
    return `  ${e.name}=${e.value ?? 'null'} sensitive=${e.isSensitive} synonyms={${synonyms}}`;
  };
  return [`${all ? 'All' : 'Dynamic'} configs for topic ${topic} are:`, ...listed.map(line)];
}
