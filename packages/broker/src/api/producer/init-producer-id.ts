import {
  ErrorCode,
  errorName,
  InitProducerId,
  type InitProducerIdRequest,
  type InitProducerIdResponse,
} from '@klog/protocol';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/**
 * InitProducerId: a fresh producer id at epoch 0 for an idempotent producer. Kafka ignores the request's
 * producer id and epoch (version 3+) when there is no transactional id, and so does klog (@platformatic/kafka
 * sends 0 / 0). Transactions are the chapter's "drawn, not built": a transactional id is refused with a
 * fatal error clients report instead of retrying, and the broker's log says why.
 */
function handleInitProducerId(
  ctx: Pick<BrokerContext, 'limited' | 'logger' | 'producerIds'>,
  request: InitProducerIdRequest,
): InitProducerIdResponse {
  if (request.transactionalId !== null) {
    ctx.logger.warn(
      `InitProducerId for transactional id ${JSON.stringify(request.transactionalId)} refused: ` +
        'klog does not build transactions (no coordinator, no __transaction_state); use an idempotent producer without a transactional id',
    );
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
      producerId: -1,
      producerEpoch: -1,
    };
  }
  let producerId: number;
  try {
    producerId = ctx.producerIds.allocate();
  } catch (error) {
    // The next block of ids could not be reserved (a full or failing disk under the broker's own file). Kafka's
    // RPCProducerIdManager answers COORDINATOR_LOAD_IN_PROGRESS while it has no block: retriable, so the
    // producer tries again and gets an id once the block is written; the connection stays open.
    const errno = (error as NodeJS.ErrnoException).code;
    ctx.limited.log(
      'error',
      'producer-ids',
      `InitProducerId: no producer id block could be reserved, answered COORDINATOR_LOAD_IN_PROGRESS: ${
        errno === undefined ? String(error) : `${errno} ${(error as Error).message}`
      }`,
    );
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
      producerId: -1,
      producerEpoch: -1,
    };
  }
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId, producerEpoch: 0 };
}

export const initProducerIdApi = defineApi({
  codec: InitProducerId,
  versions: { min: 0, max: 4 },
  handle: (ctx, _header, request) => handleInitProducerId(ctx, request),
  summary: (_, response) =>
    `${errorName(response.errorCode)} producer id ${response.producerId} epoch ${response.producerEpoch}`,
});
