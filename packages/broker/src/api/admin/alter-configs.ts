import { AlterConfigs, ErrorCode, errorName } from '@klog/protocol';
import { alterResourceConfigs, CONFIG_OPERATION } from '../../config/alter.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

/**
 * AlterConfigs: a topic's whole set of own configs replaced by the request's (what it leaves out goes back
 * to the broker's default), for the configs klog applies; any other is INVALID_CONFIG, naming it.
 */
export const alterConfigsApi = defineApi({
  codec: AlterConfigs,
  versions: { min: 0, max: 2 },
  handle(ctx: Pick<BrokerContext, 'log' | 'topicConfigs' | 'logger'>, _header, request) {
    const responses = request.resources.map((r) => {
      const changes = r.configs.map((c) => ({
        name: c.name,
        operation: CONFIG_OPERATION.SET,
        value: c.value,
      }));
      const outcome = alterResourceConfigs(
        ctx,
        r.resourceType,
        r.resourceName,
        changes,
        true,
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
