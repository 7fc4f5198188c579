import { errorName } from '@klog/protocol';
import { AdminClient } from '../topics/admin-client.js';
import { ToolUsageError } from './tool-options.js';

/**
 * The message of the exception Kafka's Admin client raises for an error code the broker gave without a
 * message of its own: Kafka's `Errors` enum gives each code an `ApiException` with a default message, and
 * the tools print `getMessage()`.
 */
const DEFAULT_MESSAGES: Readonly<Record<number, string>> = {
  [-1]: 'The server experienced an unexpected error when processing the request.',
  3: 'This server does not host this topic-partition.',
  15: 'The coordinator is not available.',
  16: 'This is not the correct coordinator.',
  17: 'The request attempted to perform an operation on an invalid topic.',
  25: 'The coordinator is not aware of this member.',
  27: 'The group is rebalancing, so a rejoin is needed.',
  35: 'The version of API is not supported.',
  36: 'Topic with this name already exists.',
  37: 'Number of partitions is below 1.',
  38: 'Replication factor is below 1 or larger than the number of available brokers.',
  40: 'Configuration is invalid.',
  68: 'The group is not empty.',
  69: 'The group id does not exist.',
  24: 'The configured groupId is invalid.',
  86: 'Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.',
};

/** A Kafka error the broker answered with: its code, and the message Kafka's client would carry. */
export class KafkaApiError extends Error {
  override readonly name = 'KafkaApiError';
  constructor(
    readonly code: number,
    brokerMessage: string | null | undefined,
  ) {
    super(brokerMessage || DEFAULT_MESSAGES[code] || `${errorName(code)} (error code ${code})`);
  }
  get codeName(): string {
    return errorName(this.code);
  }
}

/** The codes whose exception is not named after the code (Kafka's `Errors` enum, each code's builder). */
const EXCEPTION_NAMES: Readonly<Record<number, string>> = {
  [-1]: 'UnknownServerException',
  2: 'CorruptRecordException',
  7: 'TimeoutException',
  10: 'RecordTooLargeException',
  29: 'TopicAuthorizationException',
  30: 'GroupAuthorizationException',
  31: 'ClusterAuthorizationException',
  36: 'TopicExistsException',
  40: 'InvalidConfigurationException',
  54: 'SecurityDisabledException',
  68: 'GroupNotEmptyException',
};

/**
 * The class Kafka's client raises for an error code: its `Errors` enum names each code's ApiException after
 * the code (UNKNOWN_TOPIC_OR_PARTITION → UnknownTopicOrPartitionException), in org.apache.kafka.common.errors.
 */
export function exceptionClass(code: number): string {
  const named = EXCEPTION_NAMES[code];
  if (named !== undefined) return `org.apache.kafka.common.errors.${named}`;
  const camel = errorName(code)
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
  return `org.apache.kafka.common.errors.${camel.endsWith('Exception') ? camel : `${camel}Exception`}`;
}

/** `Throwable.toString()` of an error the broker answered: what ExecutionException.getMessage() carries. */
export function exceptionText(error: KafkaApiError): string {
  return `${exceptionClass(error.code)}: ${error.message}`;
}

/**
 * An exception a tool's `main` does not catch: the JVM prints `Exception in thread "main" <class>: <message>`
 * (and the stack, which klog has not) on stderr and exits 1.
 */
export class UncaughtJavaException extends Error {
  override readonly name = 'UncaughtJavaException';
  constructor(
    readonly javaClass: string,
    message: string,
  ) {
    super(message);
  }
  get line(): string {
    return `Exception in thread "main" ${this.javaClass}: ${this.message}`;
  }
}

/** `--bootstrap-server a:9092,b:9092`: the first broker that answers, its requests sent as `clientId`. */
export async function connectBootstrap(
  text: string | undefined,
  timeoutMs?: number,
  clientId?: string,
): Promise<AdminClient> {
  if (text === undefined) throw new ToolUsageError('--bootstrap-server must be specified');
  let last: unknown;
  for (const server of text.split(',').map((s) => s.trim())) {
    const m = /^(\[[^\]]+\]|[^:\s]+):(\d+)$/.exec(server);
    if (m === null) throw new ToolUsageError(`Invalid url in bootstrap.servers: ${server}`);
    try {
      return await AdminClient.connect(m[1]!.replace(/^\[|\]$/g, ''), Number(m[2]), timeoutMs, clientId);
    } catch (error) {
      last = error;
    }
  }
  throw last;
}

export async function withBootstrap<T>(
  text: string | undefined,
  f: (client: AdminClient) => Promise<T>,
  timeoutMs?: number,
  clientId?: string,
): Promise<T> {
  const client = await connectBootstrap(text, timeoutMs, clientId);
  try {
    return await f(client);
  } finally {
    client.close();
  }
}
