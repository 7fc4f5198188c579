import { apiKeyName } from '@klog/protocol';

/**
 * Requests klog cannot answer — an API it does not serve, or a version outside what it serves — seen per
 * client and API. Kafka's SocketServer closes the connection for these (no response can be written without
 * the version's schema); clients that negotiate through ApiVersions never send one, so it means a client
 * that does not (Sarama with a fixed `Version`) or a bug. The broker says so once per client id and API at
 * WARN, naming what it serves, and at DEBUG after that: a client that reconnects and retries in a loop does
 * not flood the log.
 */
export class UnsupportedRequests {
  readonly #seen = new Set<string>();

  /** The line to log, and whether this is the first time for this client and API (log it at WARN). */
  note(
    clientId: string,
    apiKey: number,
    apiVersion: number,
    served: { readonly minVersion: number; readonly maxVersion: number } | undefined,
  ): { readonly first: boolean; readonly line: string } {
    const key = `${apiKey}\u0000${clientId}`;
    const first = !this.#seen.has(key);
    this.#seen.add(key);
    const who = `client ${JSON.stringify(clientId)}`;
    const line =
      served === undefined
        ? `${apiKeyName(apiKey)} (API key ${apiKey}) v${apiVersion} from ${who} is not served by klog` +
          ' (see ApiVersions for what is); Kafka closes the connection here too'
        : `${apiKeyName(apiKey)} v${apiVersion} from ${who} is not served by klog (it serves v${served.minVersion}–v${served.maxVersion})`;
    return { first, line };
  }

  /** How many distinct client and API pairs have been seen. */
  get size(): number {
    return this.#seen.size;
  }
}
