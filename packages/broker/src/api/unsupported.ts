import { apiKeyName, ErrorCode, errorResponseFor, type ResponseFrame } from '@klog/protocol';

/**
 * What the broker does with a request it does not serve (Kafka's SocketServer closes the connection for
 * these; klog answers where it can write a response in the request's version):
 * - `answer`: UNSUPPORTED_VERSION in the request's own version, every topic and partition it named
 *   carrying the code (Kafka's AbstractRequest.getErrorResponse) — the client reports that error;
 * - `close`: no response can be written (no codec for the API or the version), or the request expects
 *   none (Produce with acks = 0, whose failures Kafka signals by closing): `why` says which.
 */
export type UnsupportedVerdict =
  | { readonly kind: 'answer'; readonly frame: ResponseFrame }
  | { readonly kind: 'close'; readonly why: string };

/** Decides a request that `parseRequest` found not served; throws ProtocolDecodeError on a body that does not parse. */
export function answerUnsupported(frame: Uint8Array): UnsupportedVerdict {
  const answer = errorResponseFor(frame, ErrorCode.UNSUPPORTED_VERSION);
  if (answer.kind === 'response') return { kind: 'answer', frame: answer.frame };
  return { kind: 'close', why: `${answer.reason}, so the connection is closed as Kafka closes it` };
}

/**
 * Requests klog does not serve — an API it has no handler for, or a version outside what it serves — seen
 * per client and API. Clients that negotiate through ApiVersions never send one, so it means a client that
 * does not (Sarama with a fixed `Version`, librdkafka with `api.version.request=false`) or a bug. The broker
 * says so once per client id and API at WARN, naming what it serves and whether it answered or closed, and
 * at DEBUG after that: a client that reconnects and retries in a loop does not flood the log.
 */
export class UnsupportedRequests {
  readonly #seen = new Set<string>();

  /** The line to log, and whether this is the first time for this client and API (log it at WARN). */
  note(
    clientId: string,
    apiKey: number,
    apiVersion: number,
    served: { readonly minVersion: number; readonly maxVersion: number } | undefined,
    verdict: UnsupportedVerdict,
  ): { readonly first: boolean; readonly line: string } {
    const key = `${apiKey}\u0000${clientId}`;
    const first = !this.#seen.has(key);
    this.#seen.add(key);
    const who = `client ${JSON.stringify(clientId)}`;
    const what =
      served === undefined
        ? `${apiKeyName(apiKey)} (API key ${apiKey}) v${apiVersion} from ${who} is not served by klog` +
          ' (see ApiVersions for what is)'
        : `${apiKeyName(apiKey)} v${apiVersion} from ${who} is not served by klog (it serves v${served.minVersion}–v${served.maxVersion})`;
    const outcome = verdict.kind === 'answer' ? 'answered UNSUPPORTED_VERSION' : verdict.why;
    return { first, line: `${what}: ${outcome}` };
  }

  /** How many distinct client and API pairs have been seen. */
  get size(): number {
    return this.#seen.size;
  }
}
