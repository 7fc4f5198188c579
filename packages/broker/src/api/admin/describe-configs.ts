import { DescribeConfigs, type DescribeConfigsResponse, ErrorCode, errorName } from '@klog/protocol';
import { CONFIG_TABLES } from '../../config/config.js';
import {
  describeBrokerConfigs,
  describeGroupConfigs,
  describeTopicConfigs,
  RESOURCE_TYPE,
} from '../../config/describe.js';
import { groupConfigDefaults } from '../../config/group-config.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../context.js';

type Result = DescribeConfigsResponse.DescribeConfigsResult;

/**
 * DescribeConfigs (Kafka's `ConfigHelper.describeConfigs`): a topic's configs with their values and
 * sources (its own, the broker's default, Kafka's default), this broker's, or a group's (GROUP, 32: the
 * consumer, share and streams protocols' group configs, stored and described); synonyms when asked (v1+),
 * the config type from v3. Configs klog does not implement are not listed, as Kafka lists only configs it
 * defines; a key asked for that klog does not know is left out, as Kafka leaves it out.
 */
export const describeConfigsApi = defineApi({
  codec: DescribeConfigs,
  versions: { min: 0, max: 4 },
  handle(
    ctx: Pick<BrokerContext, 'config' | 'log' | 'topicConfigs' | 'groupConfigs' | 'dynamicBrokerConfigs'>,
    header,
    request,
  ) {
    const v = header.apiVersion;
    const results = request.resources.map((r): Result => {
      const base = { resourceType: r.resourceType, resourceName: r.resourceName };
      const fail = (code: keyof typeof ErrorCode, message: string): Result => ({
        ...base,
        errorCode: ErrorCode[code],
        errorMessage: message,
        configs: [],
      });
      if (r.resourceType === RESOURCE_TYPE.TOPIC) {
        const invalid = ctx.log.invalidTopicName(r.resourceName);
        if (invalid !== undefined) return fail('INVALID_TOPIC_EXCEPTION', invalid);
        if (!ctx.log.topics().has(r.resourceName)) {
          return fail('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${r.resourceName}' does not exist.`);
        }
        const own = ctx.topicConfigs.own(r.resourceName);
        const configs = describeTopicConfigs(
          v,
          own,
          ctx.topicConfigs.brokerDefaults,
          r.configurationKeys,
          request.includeSynonyms,
          CONFIG_TABLES.topic,
          request.includeDocumentation,
        );
        return { ...base, errorCode: 0, errorMessage: null, configs };
      }
      if (r.resourceType === RESOURCE_TYPE.BROKER) {
        // "" is the cluster-wide default resource; a number names a broker, and only this one exists.
        if (r.resourceName !== '' && r.resourceName !== String(ctx.config.nodeId)) {
          return fail(
            'INVALID_REQUEST',
            `Broker ${r.resourceName} does not exist: this is broker ${ctx.config.nodeId}.`,
          );
        }
        const configs = describeBrokerConfigs(
          v,
          ctx.config,
          r.configurationKeys,
          request.includeSynonyms,
          CONFIG_TABLES,
          request.includeDocumentation,
          ctx.dynamicBrokerConfigs.get(String(ctx.config.nodeId)),
        );
        return { ...base, errorCode: 0, errorMessage: null, configs };
      }
      if (r.resourceType === RESOURCE_TYPE.GROUP) {
        // Kafka's ConfigHelper: any group name but the empty one, whether or not the group exists.
        if (r.resourceName === '') return fail('INVALID_REQUEST', 'Group name must not be empty');
        const configs = describeGroupConfigs(
          v,
          ctx.groupConfigs.get(r.resourceName),
          groupConfigDefaults(ctx.config),
          r.configurationKeys,
          request.includeSynonyms,
          request.includeDocumentation,
        );
        return { ...base, errorCode: 0, errorMessage: null, configs };
      }
      if (r.resourceType === RESOURCE_TYPE.BROKER_LOGGER) {
        return { ...base, errorCode: 0, errorMessage: null, configs: [] };
      }
      return fail(
        'INVALID_REQUEST',
        `klog describes topic (2), broker (4) and group (32) configs, not resource type ${r.resourceType}.`,
      );
    });
    return { throttleTimeMs: 0, results };
  },
  summary: (_, response) =>
    response.results
      .map((r) => `${r.resourceType}:${r.resourceName} ${errorName(r.errorCode)} (${r.configs.length})`)
      .join(', '),
});
