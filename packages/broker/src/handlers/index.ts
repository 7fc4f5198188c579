import { apiVersionsApi } from './api-versions.js';
import { createTopicsApi } from './create-topics.js';
import { fetchApi } from './fetch.js';
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
] as const;
