// A committed offset as the coordinator keeps it (Kafka's `OffsetAndMetadata`): its own file so that the
// record helpers and the offsets manager, which import each other's ends, share it without an import circle.

export interface CommittedOffset {
  readonly offset: number;
  readonly leaderEpoch: number;
  readonly metadata: string;
  readonly commitTimestamp: number;
  readonly expireTimestamp: number;
}
