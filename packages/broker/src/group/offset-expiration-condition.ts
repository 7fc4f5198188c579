// When a committed offset expires (Kafka's `OffsetExpirationCondition` / `OffsetExpirationConditionImpl`):
// each kind of group says from which timestamp `offsets.retention.minutes` counts, or that none of its
// offsets may expire now (`Group.offsetExpirationCondition()` returning empty).
import type { CommittedOffset } from './offset-and-metadata.js';

export class OffsetExpirationCondition {
  /** `baseTimestamp`: the time retention counts from for this offset (a group's Empty time, or its commit). */
  constructor(private readonly baseTimestamp: (offset: CommittedOffset) => number) {}

  /**
   * Kafka's `isOffsetExpired`: an offset committed with an explicit expire time (OffsetCommit v1's
   * retention) keeps the old rule; any other expires once the retention has passed since its base time.
   */
  isOffsetExpired(offset: CommittedOffset, nowMs: number, retentionMs: number): boolean {
    if (offset.expireTimestamp >= 0) return nowMs >= offset.expireTimestamp;
    return nowMs - this.baseTimestamp(offset) >= retentionMs;
  }
}

/** Retention counted from each offset's own commit (a simple group, a Stable `consumer` group, a consumer group). */
export const SINCE_COMMIT = new OffsetExpirationCondition((o) => o.commitTimestamp);
