/**
 * What the consumer-group engine reads of the broker's topics, Kafka's `MetadataImage` reduced to klog's
 * needs: the broker log port (`BrokerLog`: `topics()`, `topicId`, `topicName`, `topicsVersion`) satisfies it.
 * Ids are in the hex form the record codecs carry.
 */
export interface TopicsImage {
  /** Moves on every create, partition addition and delete (Kafka's metadata image offset). */
  readonly topicsVersion: number;
  /** name → partition count. */
  topics(): ReadonlyMap<string, number>;
  topicId(name: string): string | undefined;
  topicName(id: string): string | undefined;
}
