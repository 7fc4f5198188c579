import type { AdvertisedApi } from './context.js';
import { API_HANDLERS } from './index.js';

export type { AdvertisedApi };

/**
 * What ApiVersions answers (Kafka's ApiVersionManager): every API the broker has a handler for
 * (api/index.ts), in the versions its handler serves — or advertises, where that differs (Produce
 * from 0, see api/producer/produce.ts) — by API key.
 */
export const ADVERTISED_APIS: readonly AdvertisedApi[] = API_HANDLERS.map((h) => ({
  apiKey: h.codec.apiKey,
  minVersion: (h.advertised ?? h.versions).min,
  maxVersion: (h.advertised ?? h.versions).max,
})).sort((a, b) => a.apiKey - b.apiKey);
