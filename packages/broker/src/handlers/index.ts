import { alterConfigsApi } from './alter-configs.js';
import { apiVersionsApi } from './api-versions.js';
import { createPartitionsApi } from './create-partitions.js';
import { createTopicsApi } from './create-topics.js';
import { deleteGroupsApi } from './delete-groups.js';
import { deleteRecordsApi } from './delete-records.js';
import { deleteTopicsApi } from './delete-topics.js';
import { describeClusterApi } from './describe-cluster.js';
import { describeConfigsApi } from './describe-configs.js';
import { describeGroupsApi } from './describe-groups.js';
import { describeLogDirsApi } from './describe-log-dirs.js';
import { describeProducersApi } from './describe-producers.js';
import { describeTopicPartitionsApi } from './describe-topic-partitions.js';
import { fetchApi } from './fetch.js';
import { findCoordinatorApi } from './find-coordinator.js';
import { heartbeatApi } from './heartbeat.js';
import { incrementalAlterConfigsApi } from './incremental-alter-configs.js';
import { initProducerIdApi } from './init-producer-id.js';
import { joinGroupApi } from './join-group.js';
import { leaveGroupApi } from './leave-group.js';
import { listGroupsApi } from './list-groups.js';
import { listOffsetsApi } from './list-offsets.js';
import { metadataApi } from './metadata.js';
import { offsetCommitApi } from './offset-commit.js';
import { offsetDeleteApi } from './offset-delete.js';
import { offsetFetchApi } from './offset-fetch.js';
import { produceApi } from './produce.js';
import { syncGroupApi } from './sync-group.js';

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
] as const;
