import type { ErrorName } from '@klog/protocol';
import type { BrokerConfig } from '../config/config.js';
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
  | {
      readonly kind: 'created';
      readonly partitions: number;
      readonly configs: ReadonlyMap<string, string>;
      /** The id the log drew for it (hex); undefined when only checked (`validateOnly`, `checkNewTopic`). */
      readonly topicId: string | undefined;
    }
  | { readonly kind: 'refused'; readonly code: ErrorName; readonly message: string };

/** The settings that bound what one operation and the whole broker may hold. */
export type PartitionLimits = Pick<BrokerConfig, 'maxPartitionsPerRequest' | 'maxBrokerPartitions'>;

/** What creating a topic touches. */
export interface TopicCreationContext {
  readonly config: PartitionLimits;
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
 * Its partitions count against `max.partitions.per.request` and `max.broker.partitions` (partitionLimitRefusal).
 * `validateOnly` checks and creates nothing.
 */
export function createTopic(ctx: TopicCreationContext, topic: NewTopic, validateOnly = false): TopicCreation {
  const checked = checkNewTopic(ctx.log, topic);
  if (checked.kind === 'refused') return checked;
  const own = checked.configs;
  const over = partitionLimitRefusal(ctx, topic.partitions);
  if (over !== undefined) return over;
  if (validateOnly) return checked;
  if (own.size > 0) ctx.topicConfigs.set(topic.name, own);
  const refused = (code: ErrorName, message: string): TopicCreation => ({ kind: 'refused', code, message });
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
  return {
    kind: 'created',
    partitions: topic.partitions,
    configs: own,
    topicId: ctx.log.topicId(topic.name),
  };
}

/**
 * The checks of one topic that need nothing but the topic and the names taken — its name, its partition
 * count, its configs — and not the limits, which a request checks over all its topics at once: the topic
 * as it would be created, or why it cannot be.
 */
export function checkNewTopic(log: BrokerLog, topic: NewTopic): TopicCreation {
  const taken = nameRefusal(log, topic.name);
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
  return { kind: 'created', partitions: topic.partitions, configs: own, topicId: undefined };
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

/** What Kafka's controller answers, as POLICY_VIOLATION, when one operation would write too many records. */
export const EXCESSIVE_BATCH_MESSAGE = 'Unable to perform excessively large batch operation.';

/**
 * Why `adding` more partitions cannot be made in one operation, or undefined. Kafka's controller collects
 * an operation's records in a `BoundedList` of `QuorumController.MAX_RECORDS_PER_USER_OP` and answers
 * POLICY_VIOLATION for all of it when that overflows, so nothing of it is created; here the bound is
 * `max.partitions.per.request`. `max.broker.partitions` is KIP-578's bound on what one broker holds (never
 * in Kafka): without it a stream of requests, each within the first bound, grows the broker without end.
 */
export function partitionLimitRefusal(
  ctx: Pick<TopicCreationContext, 'config' | 'log'>,
  adding: number,
): Extract<TopicCreation, { kind: 'refused' }> | undefined {
  if (adding > ctx.config.maxPartitionsPerRequest) {
    return { kind: 'refused', code: 'POLICY_VIOLATION', message: EXCESSIVE_BATCH_MESSAGE };
  }
  const held = heldPartitions(ctx.log);
  if (held + adding > ctx.config.maxBrokerPartitions) {
    return {
      kind: 'refused',
      code: 'POLICY_VIOLATION',
      message:
        `Unable to add ${adding} partition(s): this broker holds ${held} and may hold at most ` +
        `${ctx.config.maxBrokerPartitions} (max.broker.partitions).`,
    };
  }
  return undefined;
}

/** Every partition of every topic this broker holds. */
export function heldPartitions(log: BrokerLog): number {
  let held = 0;
  for (const n of log.topics().values()) held += n;
  return held;
}

export type PartitionsAdded =
  | { readonly kind: 'added'; readonly from: number; readonly to: number }
  | Extract<TopicCreation, { kind: 'refused' }>;

/**
 * More partitions for a topic that exists, within the same limits as a new topic: Kafka's
 * `ReplicationControlManager.createPartitions` writes one record per new partition into the operation's
 * bounded list too. `count` is the topic's new total, already checked to be more than it has.
 */
export function addPartitions(
  ctx: TopicCreationContext,
  name: string,
  count: number,
  reason: string,
  validateOnly = false,
): PartitionsAdded {
  const now = ctx.log.topics().get(name);
  if (now === undefined) {
    return {
      kind: 'refused',
      code: 'UNKNOWN_TOPIC_OR_PARTITION',
      message: `The topic '${name}' does not exist.`,
    };
  }
  const over = partitionLimitRefusal(ctx, count - now);
  if (over !== undefined) return over;
  if (!validateOnly) {
    try {
      ctx.log.addPartitions(name, count);
    } catch (error) {
      if (error instanceof LogError) return { kind: 'refused', code: error.code, message: error.message };
      throw error;
    }
    ctx.logger.info(`topic ${name}: ${now} → ${count} partitions (${reason})`);
  }
  return { kind: 'added', from: now, to: count };
}
