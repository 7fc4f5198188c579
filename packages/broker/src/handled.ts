import { type ApiCodec, API_CODECS, ApiVersions, CreateTopics, Fetch, InitProducerId, ListOffsets, Metadata, Produce } from '@klog/protocol';

/** The APIs `dispatch` has a handler for: what ApiVersions advertises and what a request may be. */
export const HANDLED_API_KEYS: ReadonlySet<number> = new Set([
  ApiVersions.apiKey,
  Metadata.apiKey,
  InitProducerId.apiKey,
  CreateTopics.apiKey,
  ListOffsets.apiKey,
  Produce.apiKey,
  Fetch.apiKey,
]);

/** The codecs of those APIs: a request for any other is an API klog does not serve. */
export const SERVED_CODECS: ReadonlyMap<number, ApiCodec<unknown, never>> = new Map(
  [...API_CODECS].filter(([key]) => HANDLED_API_KEYS.has(key)),
);
