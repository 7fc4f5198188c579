import { IncrementalAlterConfigs } from '@klog/protocol';
import { type AlterContext, alterResources, alterSummary } from '../../config/alter.js';
import { defineApi } from '../api-handler.js';

/**
 * IncrementalAlterConfigs (KIP-339): each config SET, DELETEd (back to the broker's default), or, for a
 * list (cleanup.policy), APPENDed to or SUBTRACTed from; the others stay as they are.
 */
export const incrementalAlterConfigsApi = defineApi({
  codec: IncrementalAlterConfigs,
  versions: { min: 0, max: 1 },
  handle: (ctx: AlterContext, _header, request) => ({
    throttleTimeMs: 0,
    responses: alterResources(
      ctx,
      request.resources,
      (r) => r.configs.map((c) => ({ name: c.name, operation: c.configOperation, value: c.value })),
      false,
      request.validateOnly,
    ),
  }),
  summary: (_, response) => alterSummary(response),
});
