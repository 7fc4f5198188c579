/**
 * How the coordinator's operations reach `__consumer_offsets`, in the shape of Kafka's coordinator runtime
 * (`CoordinatorRecord`, `CoordinatorResult`, `CoordinatorRuntime`): an operation returns the records it
 * wants written and its response; the runtime appends them, then replays them into the coordinator's state
 * (the same `replay` that loads the log at start), so that the state changes in one place only. An append
 * that fails changes nothing and the operation's response is rebuilt from one error table.
 */
import type { ErrorName } from '@klog/protocol';

/** One record of `__consumer_offsets`: a null value is a tombstone. */
export interface OffsetsRecord {
  readonly key: Uint8Array;
  readonly value: Uint8Array | null;
}

/** Thrown by a `GroupLog` that could not append: the Kafka error the log gave. */
export class GroupLogError extends Error {
  override readonly name = 'GroupLogError';
  constructor(
    readonly code: ErrorName,
    message: string,
  ) {
    super(message);
  }
}

/** Where the coordinator's records go: the group's partition of `__consumer_offsets`. */
export interface GroupLog {
  /** Appends durably, or throws (GroupLogError: nothing was appended). */
  append(groupId: string, records: readonly OffsetsRecord[]): void;
}

/** Kafka's `CoordinatorResult`: the records an operation writes, and its response once they are written. */
export interface CoordinatorResult<T> {
  readonly records: readonly OffsetsRecord[];
  readonly response: T;
  /**
   * false: Kafka's `replayRecords=false`, for the classic group's JoinGroup and SyncGroup writes, whose
   * in-memory group the operation changed itself (the record is replayed only at load). Default true.
   */
  readonly replayRecords?: boolean;
  /**
   * Run once the records are written and replayed (Kafka's `appendFuture`; also when there are none):
   * timers a write starts, a downgraded group's rebalance. Not run when the append fails.
   */
  readonly onWritten?: (() => void) | undefined;
}

/** The operations whose appends can fail, each with its own answer (the keys of the table below). */
export type AppendOp =
  | 'join'
  | 'sync'
  | 'leave'
  | 'commit'
  | 'offsetDelete'
  | 'deleteGroups'
  | 'expireOffsets';

/**
 * The one table from an append's error to the error an operation answers. klog's answers, which its tests
 * pin; Kafka 4.1 (`GroupMetadataManager.appendGroupMetadataErrorToResponseError` and
 * `CoordinatorOperationExceptionHelper.handleOperationException`) answers UNKNOWN_TOPIC_OR_PARTITION,
 * NOT_ENOUGH_REPLICAS and REQUEST_TIMED_OUT with COORDINATOR_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER and
 * KAFKA_STORAGE_ERROR with NOT_COORDINATOR, MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE and INVALID_FETCH_SIZE
 * with UNKNOWN_SERVER_ERROR (a too-large commit too), any other with itself. Two differ here: a storage
 * error (klog: COORDINATOR_NOT_AVAILABLE) and a too-large commit (klog: INVALID_COMMIT_OFFSET_SIZE, the
 * answer of Kafka's old coordinator); both are left for a follow-up issue.
 */
export function appendErrorToResponseError(op: AppendOp, code: ErrorName): ErrorName {
  const tooLarge = code === 'MESSAGE_TOO_LARGE' || code === 'RECORD_LIST_TOO_LARGE';
  if (tooLarge && op === 'sync') return 'UNKNOWN_SERVER_ERROR';
  if (tooLarge && op === 'commit') return 'INVALID_COMMIT_OFFSET_SIZE';
  return 'COORDINATOR_NOT_AVAILABLE';
}

/** What an operation writes through: `GroupCoordinator#write`. */
export interface CoordinatorWriter {
  write<T>(groupId: string, result: CoordinatorResult<T>, onAppendError: (code: ErrorName) => T): T;
}

/**
 * Kafka's `CoordinatorRuntime`, reduced to what one broker needs: appends a result's records to the
 * group's partition, then replays them unless the result says not to.
 */
export class CoordinatorRuntime implements CoordinatorWriter {
  constructor(
    private readonly log: GroupLog,
    private readonly replay: (record: OffsetsRecord) => void,
    private readonly onEvent: (line: string) => void,
  ) {}

  write<T>(groupId: string, result: CoordinatorResult<T>, onAppendError: (code: ErrorName) => T): T {
    if (result.records.length === 0) {
      result.onWritten?.();
      return result.response;
    }
    try {
      this.log.append(groupId, result.records);
    } catch (error) {
      if (!(error instanceof GroupLogError)) throw error;
      this.onEvent(`group ${groupId}: could not write to __consumer_offsets: ${error.message}`);
      return onAppendError(error.code);
    }
    if (result.replayRecords !== false) for (const r of result.records) this.replay(r);
    result.onWritten?.();
    return result.response;
  }
}
