import { alterConfigsApi } from './admin/alter-configs.js';
import { consumerGroupDescribeApi } from './admin/consumer-group-describe.js';
import { createPartitionsApi } from './admin/create-partitions.js';
import { createTopicsApi } from './admin/create-topics.js';
import { deleteGroupsApi } from './admin/delete-groups.js';
import { deleteRecordsApi } from './admin/delete-records.js';
import { deleteTopicsApi } from './admin/delete-topics.js';
import { describeClusterApi } from './admin/describe-cluster.js';
import { describeConfigsApi } from './admin/describe-configs.js';
import { describeGroupsApi } from './admin/describe-groups.js';
import { describeLogDirsApi } from './admin/describe-log-dirs.js';
import { describeProducersApi } from './admin/describe-producers.js';
import { describeTopicPartitionsApi } from './admin/describe-topic-partitions.js';
import { incrementalAlterConfigsApi } from './admin/incremental-alter-configs.js';
import { listGroupsApi } from './admin/list-groups.js';
import { offsetDeleteApi } from './admin/offset-delete.js';
import { consumerGroupHeartbeatApi } from './consumer/consumer-group-heartbeat.js';
import { fetchApi } from './consumer/fetch.js';
import { heartbeatApi } from './consumer/heartbeat.js';
import { joinGroupApi } from './consumer/join-group.js';
import { leaveGroupApi } from './consumer/leave-group.js';
import { listOffsetsApi } from './consumer/list-offsets.js';
import { offsetCommitApi } from './consumer/offset-commit.js';
import { offsetFetchApi } from './consumer/offset-fetch.js';
import { syncGroupApi } from './consumer/sync-group.js';
import { apiVersionsApi } from './metadata/api-versions.js';
import { findCoordinatorApi } from './metadata/find-coordinator.js';
import { metadataApi } from './metadata/metadata.js';
import { initProducerIdApi } from './producer/init-producer-id.js';
import { produceApi } from './producer/produce.js';

/** Every API the broker serves: one handler file each, one line here (dispatch.ts, advertised.ts read it). */
export const API_HANDLERS = [
  produceApi,
  fetchApi,
  listOffsetsApi,
  metadataApi,
  apiVersionsApi,
  createTopicsApi,
  initProducerIdApi,
  deleteTopicsApi,
  deleteRecordsApi,
  describeConfigsApi,
  alterConfigsApi,
  describeLogDirsApi,
  createPartitionsApi,
  incrementalAlterConfigsApi,
  describeClusterApi,
  describeProducersApi,
  describeTopicPartitionsApi,
  offsetCommitApi,
  offsetFetchApi,
  findCoordinatorApi,
  joinGroupApi,
  heartbeatApi,
  leaveGroupApi,
  syncGroupApi,
  describeGroupsApi,
  listGroupsApi,
  deleteGroupsApi,
  offsetDeleteApi,
  consumerGroupHeartbeatApi,
  consumerGroupDescribeApi,
] as const;
