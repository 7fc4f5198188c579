/**
 * The name of every API key Kafka 4.1.0 defines (its ApiKeys / `*Request.json` apiKey), for saying which
 * API a request asked for even when klog does not serve it. Keys 4–7 are the ZooKeeper-era controller
 * APIs Kafka 4.0 removed.
 */
const NAMES: readonly string[] = [
  'Produce', 'Fetch', 'ListOffsets', 'Metadata', 'LeaderAndIsr', 'StopReplica', 'UpdateMetadata',
  'ControlledShutdown', 'OffsetCommit', 'OffsetFetch', 'FindCoordinator', 'JoinGroup', 'Heartbeat',
  'LeaveGroup', 'SyncGroup', 'DescribeGroups', 'ListGroups', 'SaslHandshake', 'ApiVersions', 'CreateTopics',
  'DeleteTopics', 'DeleteRecords', 'InitProducerId', 'OffsetForLeaderEpoch', 'AddPartitionsToTxn',
  'AddOffsetsToTxn', 'EndTxn', 'WriteTxnMarkers', 'TxnOffsetCommit', 'DescribeAcls', 'CreateAcls',
  'DeleteAcls', 'DescribeConfigs', 'AlterConfigs', 'AlterReplicaLogDirs', 'DescribeLogDirs',
  'SaslAuthenticate', 'CreatePartitions', 'CreateDelegationToken', 'RenewDelegationToken',
  'ExpireDelegationToken', 'DescribeDelegationToken', 'DeleteGroups', 'ElectLeaders',
  'IncrementalAlterConfigs', 'AlterPartitionReassignments', 'ListPartitionReassignments', 'OffsetDelete',
  'DescribeClientQuotas', 'AlterClientQuotas', 'DescribeUserScramCredentials', 'AlterUserScramCredentials',
  'Vote', 'BeginQuorumEpoch', 'EndQuorumEpoch', 'DescribeQuorum', 'AlterPartition', 'UpdateFeatures',
  'Envelope', 'FetchSnapshot', 'DescribeCluster', 'DescribeProducers', 'BrokerRegistration',
  'BrokerHeartbeat', 'UnregisterBroker', 'DescribeTransactions', 'ListTransactions', 'AllocateProducerIds',
  'ConsumerGroupHeartbeat', 'ConsumerGroupDescribe', 'ControllerRegistration', 'GetTelemetrySubscriptions',
  'PushTelemetry', 'AssignReplicasToDirs', 'ListConfigResources', 'DescribeTopicPartitions',
  'ShareGroupHeartbeat', 'ShareGroupDescribe', 'ShareFetch', 'ShareAcknowledge', 'AddRaftVoter',
  'RemoveRaftVoter', 'UpdateRaftVoter', 'InitializeShareGroupState', 'ReadShareGroupState',
  'WriteShareGroupState', 'DeleteShareGroupState', 'ReadShareGroupStateSummary', 'StreamsGroupHeartbeat',
  'StreamsGroupDescribe', 'DescribeShareGroupOffsets', 'AlterShareGroupOffsets', 'DeleteShareGroupOffsets',
];

/** `Produce` for 0 …; `unknown API key 999` for a key Kafka does not define. */
export function apiKeyName(apiKey: number): string {
  return NAMES[apiKey] ?? `unknown API key ${apiKey}`;
}
