import { alterConfigsApi } from './alter-configs.js';
import { apiVersionsApi } from './api-versions.js';
import { createPartitionsApi } from './create-partitions.js';
import { createTopicsApi } from './create-topics.js';
import { deleteRecordsApi } from './delete-records.js';
import { deleteTopicsApi } from './delete-topics.js';
import { describeClusterApi } from './describe-cluster.js';
import { describeConfigsApi } from './describe-configs.js';
import { describeLogDirsApi } from './describe-log-dirs.js';
import { describeProducersApi } from './describe-producers.js';
import { describeTopicPartitionsApi } from './describe-topic-partitions.js';
import { fetchApi } from './fetch.js';
import { incrementalAlterConfigsApi } from './incremental-alter-configs.js';
import { initProducerIdApi } from './init-producer-id.js';
import { listOffsetsApi } from './list-offsets.js';
import { metadataApi } from './metadata.js';
import { produceApi } from './produce.js';

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
] as const;
