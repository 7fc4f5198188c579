/**
 * Kafka's `modern/MemberState`: where a member is in reconciling towards its target assignment. The numbers
 * are the `State` int8 of the ConsumerGroupCurrentMemberAssignment record (127 is UNKNOWN, read from a newer
 * coordinator's log).
 */
export const MemberState = {
  STABLE: 0,
  UNREVOKED_PARTITIONS: 1,
  UNRELEASED_PARTITIONS: 2,
  UNKNOWN: 127,
} as const;
export type MemberState = (typeof MemberState)[keyof typeof MemberState];

export function memberStateName(s: MemberState): string {
  switch (s) {
    case MemberState.STABLE:
      return 'stable';
    case MemberState.UNREVOKED_PARTITIONS:
      return 'unrevoked_partitions';
    case MemberState.UNRELEASED_PARTITIONS:
      return 'unreleased_partitions';
    default:
      return 'unknown';
  }
}
