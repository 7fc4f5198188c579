/** Kafka's `ConsumerGroupMigrationPolicy` (`group.consumer.migration.policy`). */
export type ConsumerGroupMigrationPolicy = 'disabled' | 'downgrade' | 'upgrade' | 'bidirectional';

/**
 * The group coordinator's settings, as Kafka's `GroupCoordinatorConfig` holds them (the broker resolves them
 * from its `group.*` and `offset*` configs and hands them in).
 */
export interface GroupCoordinatorConfig {
  /** Kafka's `group.min.session.timeout.ms`. */
  readonly groupMinSessionTimeoutMs: number;
  /** Kafka's `group.max.session.timeout.ms`. */
  readonly groupMaxSessionTimeoutMs: number;
  /** Kafka's `group.initial.rebalance.delay.ms`: how long the first rebalance of an empty group waits for more members. */
  readonly groupInitialRebalanceDelayMs: number;
  /**
   * Kafka's `group.max.size` (Integer.MAX_VALUE there): members and pending members of one group. klog
   * bounds it so that one group cannot take the broker's memory.
   */
  readonly groupMaxSize: number;
  /**
   * The most a group's members' protocol metadata may sum to: the size of the GroupMetadata record the
   * group needs once it is Stable, which could never be written past `message.max.bytes`.
   */
  readonly groupMaxMetadataBytes: number;
  /** Kafka's `offset.metadata.max.bytes`. */
  readonly offsetMetadataMaxBytes: number;
  /** Kafka's `offsets.retention.minutes`, in ms. */
  readonly offsetsRetentionMs: number;
  /** Kafka's `group.classic.new.member.join.timeout.ms`: a new member's join times out after this. */
  readonly newMemberJoinTimeoutMs: number;
  /** Kafka's `group.consumer.session.timeout.ms`: a consumer group member is fenced after this without a heartbeat. */
  readonly consumerGroupSessionTimeoutMs: number;
  /** Kafka's `group.consumer.heartbeat.interval.ms`, told to consumer group members. */
  readonly consumerGroupHeartbeatIntervalMs: number;
  /** Kafka's `group.consumer.assignors`: the server-side assignors, the first is the default. */
  readonly consumerGroupAssignors: readonly string[];
  /** Kafka's `group.consumer.max.size` (Integer.MAX_VALUE there): members of one consumer group; klog bounds it as `groupMaxSize`. */
  readonly consumerGroupMaxSize: number;
  /**
   * Kafka's `group.consumer.migration.policy`: whether a non-empty classic group becomes a consumer group
   * when a consumer-protocol member joins (upgrade), and a consumer group a classic group when its last
   * consumer-protocol member leaves (downgrade). Empty groups change protocol under any policy.
   */
  readonly consumerGroupMigrationPolicy: ConsumerGroupMigrationPolicy;
}

export const DEFAULT_GROUP_CONFIG: GroupCoordinatorConfig = {
  groupMinSessionTimeoutMs: 6000,
  groupMaxSessionTimeoutMs: 1_800_000,
  groupInitialRebalanceDelayMs: 3000,
  groupMaxSize: 1000,
  groupMaxMetadataBytes: 1_048_588,
  offsetMetadataMaxBytes: 4096,
  offsetsRetentionMs: 7 * 24 * 60 * 60 * 1000,
  newMemberJoinTimeoutMs: 300_000,
  consumerGroupSessionTimeoutMs: 45_000,
  consumerGroupHeartbeatIntervalMs: 5000,
  consumerGroupAssignors: ['uniform', 'range'],
  consumerGroupMaxSize: 1000,
  consumerGroupMigrationPolicy: 'bidirectional',
};
