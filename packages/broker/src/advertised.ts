import { API_CODECS, Produce } from '@klog/protocol';
import { HANDLED_API_KEYS } from './handled.js';

export interface AdvertisedApi {
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
}

/**
 * What ApiVersions answers: every API klog has codecs for, in the versions it serves — but Produce from 0,
 * as Kafka 4 does (`ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION`, KAFKA-18659): librdkafka only
 * compresses when the range it is shown contains Produce v0. A Produce request below v3 is still refused
 * (the connection is closed, as Kafka does), and no client picks one: each takes the highest it shares.
 */
export const ADVERTISED_APIS: readonly AdvertisedApi[] = [...API_CODECS.values()]
  // Only what a handler answers: a codec alone is not a served API.
  .filter((codec) => HANDLED_API_KEYS.has(codec.apiKey))
  .map((codec) => ({
    apiKey: codec.apiKey,
    minVersion: codec.apiKey === Produce.apiKey ? 0 : codec.minVersion,
    maxVersion: codec.maxVersion,
  }))
  .sort((a, b) => a.apiKey - b.apiKey);
