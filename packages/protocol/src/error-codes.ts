/**
 * Kafka's error codes a broker of klog's scope answers with (Kafka 4.1.0's `Errors` enum, by the same
 * names), so that code names one error: `ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER` is 45 on the wire.
 */
export const ErrorCode = {
  UNKNOWN_SERVER_ERROR: -1,
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  INVALID_FETCH_SIZE: 4,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  MESSAGE_TOO_LARGE: 10,
  COORDINATOR_NOT_AVAILABLE: 15,
  INVALID_TOPIC_EXCEPTION: 17,
  RECORD_LIST_TOO_LARGE: 18,
  NOT_ENOUGH_REPLICAS: 19,
  INVALID_REQUIRED_ACKS: 21,
  CLUSTER_AUTHORIZATION_FAILED: 31,
  INVALID_TIMESTAMP: 32,
  UNSUPPORTED_VERSION: 35,
  TOPIC_ALREADY_EXISTS: 36,
  INVALID_PARTITIONS: 37,
  INVALID_REPLICATION_FACTOR: 38,
  INVALID_REPLICA_ASSIGNMENT: 39,
  INVALID_CONFIG: 40,
  INVALID_REQUEST: 42,
  UNSUPPORTED_FOR_MESSAGE_FORMAT: 43,
  POLICY_VIOLATION: 44,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  DUPLICATE_SEQUENCE_NUMBER: 46,
  INVALID_PRODUCER_EPOCH: 47,
  INVALID_TXN_STATE: 48,
  INVALID_PRODUCER_ID_MAPPING: 49,
  INVALID_TRANSACTION_TIMEOUT: 50,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 53,
  KAFKA_STORAGE_ERROR: 56,
  UNKNOWN_PRODUCER_ID: 59,
  FETCH_SESSION_ID_NOT_FOUND: 70,
  INVALID_FETCH_SESSION_EPOCH: 71,
  UNSUPPORTED_COMPRESSION_TYPE: 76,
  OFFSET_NOT_AVAILABLE: 78,
  INVALID_RECORD: 87,
  PRODUCER_FENCED: 90,
  UNKNOWN_TOPIC_ID: 100,
} as const;

export type ErrorName = keyof typeof ErrorCode;

const NAMES = new Map<number, ErrorName>(
  (Object.entries(ErrorCode) as [ErrorName, number][]).map(([name, code]) => [code, name]),
);

/** The name of a code, or `ERROR_<code>` for one outside this list. */
export function errorName(code: number): string {
  return NAMES.get(code) ?? `ERROR_${code}`;
}

export function isErrorName(name: string): name is ErrorName {
  return Object.hasOwn(ErrorCode, name);
}
