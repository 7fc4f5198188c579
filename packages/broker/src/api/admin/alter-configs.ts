import { AlterConfigs } from '@klog/protocol';
import { type AlterContext, alterResources, alterSummary, CONFIG_OPERATION } from '../../config/alter.js';
import { defineApi } from '../api-handler.js';

/**
 * AlterConfigs: a topic's whole set of own configs replaced by the request's (what it leaves out goes back
 * to the broker's default), for the configs klog applies; any other is INVALID_CONFIG, naming it.
 */
export const alterConfigsApi = defineApi({
  codec: AlterConfigs,
  versions: { min: 0, max: 2 },
  handle: (ctx: AlterContext, _header, request) => ({
    throttleTimeMs: 0,
    responses: alterResources(
      ctx,
      request.resources,
      (r) => r.configs.map((c) => ({ name: c.name, operation: CONFIG_OPERATION.SET, value: c.value })),
      true,
      request.validateOnly,
    ),
  }),
  summary: (_, response) => alterSummary(response),
});
