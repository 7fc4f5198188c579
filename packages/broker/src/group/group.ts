/**
 * What every group is to the coordinator's offsets and admin paths, whatever its protocol: Kafka's
 * `Group` interface (`org.apache.kafka.coordinator.group.Group`), which `ClassicGroup` implements.
 */
import type { ErrorName } from '@klog/protocol';

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
  /** Whether OffsetDelete must refuse this topic (GROUP_SUBSCRIBED_TO_TOPIC). */
  isSubscribedToTopic(topic: string): boolean;
}
