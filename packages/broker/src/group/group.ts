/**
 * What every group is to the coordinator's offsets and admin paths, whatever its protocol: Kafka's
 * `Group` interface (`org.apache.kafka.coordinator.group.Group`), which `ClassicGroup` implements.
 */
import type { ErrorName } from '@klog/protocol';
import type { OffsetExpirationCondition } from './offset-expiration-condition.js';

export interface Group {
  readonly groupId: string;
  readonly type: 'classic' | 'consumer';
  isEmpty(): boolean;
  stateAsString(): string;
  protocolType(): string | null;
  /** An OffsetCommit's member check, or undefined when the commit may go ahead. */
  validateOffsetCommit(
    memberId: string,
    instanceId: string | null,
    epochOrGeneration: number,
    apiVersion: number,
  ): ErrorName | undefined;
  validateOffsetFetch(memberId: string | null, memberEpoch: number): ErrorName | undefined;
  validateOffsetDelete(): ErrorName | undefined;
  validateDeleteGroup(): ErrorName | undefined;
  /** From when `offsets.retention.minutes` counts for each offset; undefined: none may expire now. */
  offsetExpirationCondition(): OffsetExpirationCondition | undefined;
  /** Whether OffsetDelete must refuse this topic (GROUP_SUBSCRIBED_TO_TOPIC); expiry skips it too. */
  isSubscribedToTopic(topic: string): boolean;
}
