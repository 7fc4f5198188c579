// The coordinator's timer keys, one per group or member, as Kafka's `GroupMetadataManager` names them
// (`classicGroupHeartbeatKey` and its siblings): a file of their own, which the group manager and the classic
// group's operations both use.

export function classicGroupHeartbeatKey(groupId: string, memberId: string): string {
  return `heartbeat\u0000${groupId}\u0000${memberId}`;
}

export function classicGroupPendingMemberKey(groupId: string, memberId: string): string {
  return `pending-member\u0000${groupId}\u0000${memberId}`;
}

export function classicGroupJoinKey(groupId: string): string {
  return `join\u0000${groupId}`;
}

export function classicGroupSyncKey(groupId: string): string {
  return `sync\u0000${groupId}`;
}
