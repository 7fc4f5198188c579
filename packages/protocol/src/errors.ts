/**
 * What can go wrong on the wire, each naming the Kafka error a broker answers with (or why it closes the
 * connection instead, as Kafka's SocketServer does when a request cannot be parsed).
 */

/**
 * Bytes that are not a valid request: the field (a path such as `topicData[].partitionData[].records`), the
 * byte offset in the frame where it was read, and why. Kafka's `RequestContext.parseRequest` turns such
 * input into an InvalidRequestException and the connection is closed.
 */
export class ProtocolDecodeError extends Error {
  override readonly name = 'ProtocolDecodeError';
  readonly code = 'INVALID_REQUEST';
  constructor(
    readonly field: string,
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`${field} at byte ${offset}: ${reason}`);
  }
}

/**
 * A response that cannot be written in the version asked for: a value out of its field's range, a null in
 * a field that is not nullable in that version, or a field the version lacks holding a value that must not
 * be dropped (Kafka's generated `write` throws UnsupportedVersionException for such a field).
 */
export class ProtocolEncodeError extends Error {
  override readonly name = 'ProtocolEncodeError';
  readonly code = 'UNKNOWN_SERVER_ERROR';
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}
