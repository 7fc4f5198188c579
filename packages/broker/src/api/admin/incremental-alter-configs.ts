import { ErrorCode, errorName, IncrementalAlterConfigs } from '@klog/protocol';
import { alterResourceConfigs } from '../../config/alter.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/**
 * IncrementalAlterConfigs (KIP-339): each config SET, DELETEd (back to the broker's default), or, for a
 * list (cleanup.policy), APPENDed to or SUBTRACTed from; the others stay as they are.
 */
export const incrementalAlterConfigsApi = defineApi({
  codec: IncrementalAlterConfigs,
  versions: { min: 0, max: 1 },
  handle(ctx: Pick<BrokerContext, 'log' | 'topicConfigs' | 'logger'>, _header, request) {
    const responses = request.resources.map((r) => {
      const changes = r.configs.map((c) => ({ name: c.name, operation: c.configOperation, value: c.value }));
      const outcome = alterResourceConfigs(
        ctx,
        r.resourceType,
        r.resourceName,
        changes,
        false,
        request.validateOnly,
      );
      return {
        errorCode: outcome.kind === 'ok' ? ErrorCode.NONE : ErrorCode[outcome.code],
        errorMessage: outcome.kind === 'ok' ? null : outcome.message,
        resourceType: r.resourceType,
        resourceName: r.resourceName,
      };
    });
    return { throttleTimeMs: 0, responses };
  },
  summary: (_, response) =>
    response.responses.map((r) => `${r.resourceType}:${r.resourceName} ${errorName(r.errorCode)}`).join(', '),
});
