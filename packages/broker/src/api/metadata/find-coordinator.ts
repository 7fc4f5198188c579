import {
  ErrorCode,
  errorName,
  FindCoordinator,
  type FindCoordinatorRequest,
  type FindCoordinatorResponse,
  type RequestHeader,
} from '@klog/protocol';
import { LogError } from '../../log/log-port.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/** FindCoordinator's key types (Kafka's `CoordinatorType`). */
const GROUP = 0;
const TRANSACTION = 1;

/**
 * FindCoordinator: on one node this broker coordinates every group — and every transactional id, so a
 * transactional client goes on to InitProducerId and is refused there, at once and for good, instead of
 * looking for a coordinator forever. A group key makes sure `__consumer_offsets` exists, as Kafka creates it
 * on the first FindCoordinator of a group. Version 4 asks for several keys at once (KIP-699).
 */
function handleFindCoordinator(
  ctx: Pick<BrokerContext, 'advertised' | 'config' | 'offsetsTopic'>,
  header: RequestHeader,
  request: FindCoordinatorRequest,
): FindCoordinatorResponse {
  const { nodeId } = ctx.config;
  const { host, port } = ctx.advertised;
  let errorCode: number = ErrorCode.NONE;
  let errorMessage: string | null = null;
  if (request.keyType !== GROUP && request.keyType !== TRANSACTION) {
    errorCode = ErrorCode.INVALID_REQUEST;
    errorMessage = `Unknown coordinator type ${request.keyType}`;
  } else if (request.keyType === GROUP) {
    try {
      ctx.offsetsTopic.ensure();
    } catch (error) {
      if (!(error instanceof LogError)) throw error;
      errorCode = ErrorCode.COORDINATOR_NOT_AVAILABLE;
      errorMessage = error.message;
    }
  }
  const found = errorCode === ErrorCode.NONE;
  if (header.apiVersion >= 4) {
    return {
      throttleTimeMs: 0,
      // Version 4 has these only per key: the defaults.
      errorCode: 0,
      errorMessage: null,
      nodeId: 0,
      host: '',
      port: 0,
      coordinators: request.coordinatorKeys.map((key) => ({
        key,
        nodeId: found ? nodeId : -1,
        host: found ? host : '',
        port: found ? port : -1,
        errorCode,
        errorMessage,
      })),
    };
  }
  return {
    throttleTimeMs: 0,
    errorCode,
    errorMessage,
    nodeId: found ? nodeId : -1,
    host: found ? host : '',
    port: found ? port : -1,
    coordinators: [],
  };
}

export const findCoordinatorApi = defineApi({
  codec: FindCoordinator,
  versions: { min: 0, max: 4 },
  handle: handleFindCoordinator,
  summary(request, response) {
    const type = request.keyType === TRANSACTION ? 'transaction' : 'group';
    if (response.coordinators.length > 0 || request.coordinatorKeys.length > 0) {
      return response.coordinators
        .map(
          (c) =>
            `${type} ${JSON.stringify(c.key.slice(0, 100))} → ${errorName(c.errorCode)} node ${c.nodeId}`,
        )
        .join(', ');
    }
    return `${type} ${JSON.stringify(request.key.slice(0, 100))} → ${errorName(response.errorCode)} node ${response.nodeId}`;
  },
});
