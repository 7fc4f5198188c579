import type { Reader } from '../wire/reader.js';
import type { Writer } from '../wire/writer.js';

/**
 * One API's codecs from the broker's side: a request reader and a response writer per version klog serves
 * (`minVersion`..`maxVersion`) — and the client's side too, for klog's own tools — and the facts a connection needs before the body: which versions are
 * flexible (they take request header v2 and, but for ApiVersions, response header v1).
 */
export interface ApiCodec<Req, Res, Key extends number = number> {
  /** As Kafka's ApiKeys names it: `Produce`, `Fetch`, `ApiVersions`… */
  readonly name: string;
  /** The API key, as a literal type in each generated codec (`Produce.apiKey` is `0`). */
  readonly apiKey: Key;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** The first flexible version in Kafka's definition (it holds for versions klog does not serve too). */
  readonly firstFlexibleVersion: number;
  /** Kafka 4.1.0's validVersions, for messages about versions klog does not serve. */
  readonly kafkaVersions: { readonly min: number; readonly max: number };
  /** Reads the request body of `version`; throws ProtocolDecodeError on bytes that are not one. */
  readRequest(version: number, r: Reader): Req;
  /** Writes the response body of `version`; throws ProtocolEncodeError on a value the version cannot carry. */
  writeResponse(version: number, w: Writer, m: Res): void;
  /** The client's side, for klog's own tools: writes a request body of `version`. */
  writeRequest(version: number, w: Writer, m: Req): void;
  /** The client's side: reads a response body of `version`. */
  readResponse(version: number, r: Reader): Res;
}
