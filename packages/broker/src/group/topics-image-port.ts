/**
 * The broker's topics as the consumer group engine reads them (its `TopicsImage`, Kafka's `MetadataImage`):
 * the log port's `topics()`, and its topic ids and `topicsVersion` (issue 41 WP-3's `BrokerLog.topicId`,
 * `topicName`, `topicsVersion`). A log port without ids yet gives a consumer group no partitions to assign.
 */
import type { TopicsImage } from './modern/index.js';

export function topicsImageOf(
  log: { topics(): ReadonlyMap<string, number> } & Partial<TopicsImage>,
): TopicsImage {
  return {
    get topicsVersion() {
      return log.topicsVersion ?? 0;
    },
    topics: () => log.topics(),
    topicId: (name) => log.topicId?.(name),
    topicName: (id) => log.topicName?.(id),
  };
}
