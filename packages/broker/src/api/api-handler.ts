import type { ApiCodec, ApiKey, ApiRequest, ApiResponse, RequestHeader } from '@klog/protocol';
import type { BrokerContext } from './context.js';

/**
 * Who sent a request, as its connection knows it: the client's address, which DescribeGroups shows for each
 * member (Kafka's clientHost), and a signal aborted when the connection closes, so a handler still waiting
 * gives up (the connection makes it on first use: most never wait).
 */
export interface ClientInfo {
  readonly host: string;
  readonly gone: AbortSignal;
}

/** A range of API versions, both ends included. */
export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

/**
 * A request handled without a response going back: acks = 0, or a response a teaching fault withholds.
 * `summary` is the debug line's; `close`, when set, closes the connection instead, saying why (a fault).
 */
export class Unanswered {
  constructor(
    readonly summary: string,
    readonly close?: string,
  ) {}
}

/**
 * One API as the broker serves it, all in one place (as franz-go's kfake registers each key's versions
 * beside its handler, and Kafka's KafkaApis matches each ApiKeys to one `handleXxxRequest`): the codec,
 * the versions served, the handler, and the one-line summary the debug log prints of each request.
 */
export interface ApiHandler<K extends ApiKey> {
  /** The generated codec: the API's key and name, and the versions klog has codecs for. */
  readonly codec: ApiCodec<ApiRequest<K>, ApiResponse<K>, K>;
  /** The versions served: within the codec's; a request in another is refused, the connection closed. */
  readonly versions: VersionRange;
  /** What ApiVersions advertises, when it is not `versions` (Produce: from 0, see produce.ts). */
  readonly advertised?: VersionRange;
  /**
   * Answers one request. A handler's own signature types `ctx` with only what it uses of the context
   * (`Pick<BrokerContext, 'log' | …>`: the dispatcher passes the whole context), so each file states what it
   * depends on. Only a handler that may wait (Fetch for data, JoinGroup and SyncGroup for the
   * rest of the group) returns a promise; the others answer at once, and the connection answers requests
   * in order.
   */
  handle(
    ctx: BrokerContext,
    header: RequestHeader,
    request: ApiRequest<K>,
    client: ClientInfo,
  ): ApiResponse<K> | Unanswered | Promise<ApiResponse<K>>;
  /** The debug log's line for a request answered with `response`. */
  summary(request: ApiRequest<K>, response: ApiResponse<K>): string;
}

/** Declares an API's handler; the key is the codec's, so the request and response types follow. */
export function defineApi<K extends ApiKey>(handler: ApiHandler<K>): ApiHandler<K> {
  const { codec, versions } = handler;
  if (versions.min < codec.minVersion || versions.max > codec.maxVersion || versions.min > versions.max) {
    throw new RangeError(
      `${codec.name}: versions ${versions.min}–${versions.max} are not within those it has codecs for ` +
        `(${codec.minVersion}–${codec.maxVersion})`,
    );
  }
  return handler;
}

/** The bodies of responses marked `sameForEveryRequest`, by version, encoded when first sent. */
const encodedBodies = new WeakMap<object, Map<number, Uint8Array>>();

/**
 * Marks a response as the same for every request (ApiVersions' list of what klog serves): the dispatcher
 * encodes its body once per version and frames a copy for each request, instead of encoding it for every
 * connection a client opens (issue 44: an idle connection's garbage). The response is frozen here, and what
 * it holds by its maker (ApiVersions freezes its list): one changed after its first sending would not be
 * sent as changed.
 */
export function sameForEveryRequest<T extends object>(response: T): Readonly<T> {
  encodedBodies.set(response, new Map());
  return Object.freeze(response);
}

/** The encoded bodies of a response marked `sameForEveryRequest`, by version; undefined for any other. */
export function encodedBodiesOf(response: object): Map<number, Uint8Array> | undefined {
  return encodedBodies.get(response);
}
