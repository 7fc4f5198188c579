import type { ErrorName } from '@klog/protocol';
import { checkTopicConfig } from '../config/topic-config.js';
import type { TopicConfigs } from '../config/topic-configs.js';
import type { Logger } from '../logging/logger.js';
import { type BrokerLog, LogError } from './log-port.js';

/** What a topic is made of: its name, its partitions and its own configs (unchecked, as asked). */
export interface NewTopic {
  readonly name: string;
  readonly partitions: number;
  readonly configs: readonly { readonly name: string; readonly value: string | null }[];
  /** Who asked, for the log line: `CreateTopics`, `auto-create, asked by Metadata`, the group coordinator. */
  readonly reason: string;
}

export type TopicCreation =
  | { readonly kind: 'created'; readonly partitions: number; readonly configs: ReadonlyMap<string, string> }
  | { readonly kind: 'refused'; readonly code: ErrorName; readonly message: string };

/** What creating a topic touches. */
export interface TopicCreationContext {
  readonly log: BrokerLog;
  readonly topicConfigs: TopicConfigs;
  readonly logger: Logger;
}

/**
 * The one way a topic is made, whoever asks — CreateTopics, Metadata's auto-creation and the group
 * coordinator's `__consumer_offsets` — with one set of rules, as every creation in Kafka ends in the
 * controller's `ReplicationControlManager.createTopics`: a valid name not taken yet, at least one
 * partition, each config one klog applies with a value it can use (one it does not apply is refused, named,
 * rather than ignored: a `cleanup.policy=compact` dropped would lose data later). The configs are stored
 * before the partitions' directories are made and dropped again if those cannot be: a crash in between
 * leaves an entry the next start drops, never a topic whose configs are lost (topic-config-store.ts).
 * `validateOnly` checks and creates nothing.
 */
export function createTopic(ctx: TopicCreationContext, topic: NewTopic, validateOnly = false): TopicCreation {
  const taken = nameRefusal(ctx.log, topic.name);
  if (taken !== undefined) return taken;
  const refused = (code: ErrorName, message: string): TopicCreation => ({ kind: 'refused', code, message });
  if (!Number.isSafeInteger(topic.partitions) || topic.partitions <= 0) {
    return refused(
      'INVALID_PARTITIONS',
      `Number of partitions must be larger than 0, got ${topic.partitions}.`,
    );
  }
  const own = new Map<string, string>();
  for (const c of topic.configs) {
    if (own.has(c.name))
      return refused('INVALID_REQUEST', `Duplicate config ${c.name} for topic ${topic.name}.`);
    const checked = checkTopicConfig(c.name, c.value);
    if (!checked.ok) return refused('INVALID_CONFIG', checked.reason);
    own.set(c.name, checked.value);
  }
  if (validateOnly) return { kind: 'created', partitions: topic.partitions, configs: own };
  if (own.size > 0) ctx.topicConfigs.set(topic.name, own);
  try {
    ctx.log.createTopic(topic.name, topic.partitions);
  } catch (error) {
    if (own.size > 0) ctx.topicConfigs.delete(topic.name);
    if (error instanceof LogError) return refused(error.code, error.message);
    throw error;
  }
  const shown = [...own].map(([k, v]) => `${k}=${v}`).join(', ');
  ctx.logger.info(
    `created topic ${topic.name} with ${topic.partitions} partition(s) (${topic.reason})${shown === '' ? '' : `: ${shown}`}`,
  );
  return { kind: 'created', partitions: topic.partitions, configs: own };
}

/**
 * Why no topic can be made with this name, or undefined: an invalid name (Kafka's `Topic.validate`), or a
 * topic of that name already there. Kafka's controller checks these first, for every topic of a request.
 */
export function nameRefusal(
  log: BrokerLog,
  name: string,
): Extract<TopicCreation, { kind: 'refused' }> | undefined {
  const invalid = log.invalidTopicName(name);
  if (invalid !== undefined) return { kind: 'refused', code: 'INVALID_TOPIC_EXCEPTION', message: invalid };
  if (log.topics().has(name)) {
    return { kind: 'refused', code: 'TOPIC_ALREADY_EXISTS', message: `Topic '${name}' already exists.` };
  }
  return undefined;
}
