import type { ErrorName } from '@klog/protocol';

/**
 * The Kafka errors the consumer-group engine answers with. The KIP-848 codes (110–113, 128) join
 * @klog/protocol's `ErrorName` with issue 41's protocol work; until then they are named here, and the union
 * stays correct after.
 */
export type ConsumerGroupErrorName =
  | ErrorName
  | 'FENCED_MEMBER_EPOCH'
  | 'UNRELEASED_INSTANCE_ID'
  | 'UNSUPPORTED_ASSIGNOR'
  | 'STALE_MEMBER_EPOCH'
  | 'INVALID_REGULAR_EXPRESSION';

/** Kafka's `ApiException` subclasses the group code throws (FencedMemberEpochException, …), as one class with a code. */
export class ConsumerGroupError extends Error {
  readonly code: ConsumerGroupErrorName;
  constructor(code: ConsumerGroupErrorName, message: string) {
    super(message);
    this.name = 'ConsumerGroupError';
    this.code = code;
  }
}

/** Kafka's `IllegalStateException` in the group model: a bug, never an answer to a client. */
export class ConsumerGroupIllegalStateError extends Error {
  readonly code = 'UNKNOWN_SERVER_ERROR' as const;
  constructor(message: string) {
    super(message);
    this.name = 'ConsumerGroupIllegalStateError';
  }
}
