import { ErrorCode, type ErrorName, errorName } from '@klog/protocol';
import type { BrokerContext } from '../api/context.js';
import { RESOURCE_TYPE } from './describe.js';
import { checkDynamicBrokerConfig, dynamicBrokerConfigDef } from './dynamic-broker-config.js';
import { groupConfigBounds, validateGroupConfigs } from './group-config.js';
import { checkTopicConfig, topicConfigDef } from './topic-config.js';

/** Kafka's `AlterConfigOp.OpType` (IncrementalAlterConfigs); AlterConfigs is a SET of the whole set. */
export const CONFIG_OPERATION = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

export interface ConfigChange {
  readonly name: string;
  readonly operation: number;
  readonly value: string | null;
}

/** What altering configs uses of the broker. */
export type AlterContext = Pick<
  BrokerContext,
  'config' | 'log' | 'topicConfigs' | 'groupConfigs' | 'dynamicBrokerConfigs' | 'logger'
>;

/** What altering one resource's configs comes to: done (or would be, validateOnly), or refused and why. */
export type AlterOutcome =
  | { readonly kind: 'ok' }
  | { readonly kind: 'refused'; readonly code: ErrorName; readonly message: string };

/** Why a config name klog does not apply is refused (unknown, or Kafka's and not klog's). */
function reasonFor(name: string): string {
  const checked = checkTopicConfig(name, '');
  return checked.ok ? `Unknown topic config name: ${name}` : checked.reason;
}

const refused = (code: ErrorName, message: string): AlterOutcome => ({ kind: 'refused', code, message });

/** One resource of an AlterConfigs or IncrementalAlterConfigs request, and its line of the response. */
interface AlterResource {
  readonly resourceType: number;
  readonly resourceName: string;
}
interface AlterResourceResponse extends AlterResource {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/**
 * The response lines of AlterConfigs and IncrementalAlterConfigs (Kafka's `ConfigAdminManager` answers both
 * the same way): each resource altered on its own by `alterResourceConfigs`, its outcome as a code.
 */
export function alterResources<R extends AlterResource>(
  ctx: AlterContext,
  resources: readonly R[],
  changesOf: (resource: R) => readonly ConfigChange[],
  replace: boolean,
  validateOnly: boolean,
): AlterResourceResponse[] {
  return resources.map((r) => {
    const outcome = alterResourceConfigs(
      ctx,
      r.resourceType,
      r.resourceName,
      changesOf(r),
      replace,
      validateOnly,
    );
    return {
      errorCode: outcome.kind === 'ok' ? ErrorCode.NONE : ErrorCode[outcome.code],
      errorMessage: outcome.kind === 'ok' ? null : outcome.message,
      resourceType: r.resourceType,
      resourceName: r.resourceName,
    };
  });
}

/** The debug log's line for either API's response. */
export function alterSummary(response: { readonly responses: readonly AlterResourceResponse[] }): string {
  return response.responses
    .map((r) => `${r.resourceType}:${r.resourceName} ${errorName(r.errorCode)}`)
    .join(', ');
}

/**
 * Alters one resource's configs as Kafka's `ConfigAdminManager` does: every change checked before any is
 * applied (one bad config refuses the resource, naming it), then the topic's new set written durably and
 * applied to its logs. `replace` (AlterConfigs) makes the changes the topic's whole set; otherwise
 * (IncrementalAlterConfigs) each SETs, DELETEs, APPENDs to or SUBTRACTs from a list.
 */
export function alterResourceConfigs(
  ctx: AlterContext,
  resourceType: number,
  resourceName: string,
  changes: readonly ConfigChange[],
  replace: boolean,
  validateOnly: boolean,
): AlterOutcome {
  if (resourceType === RESOURCE_TYPE.BROKER && changes.every((c) => dynamicBrokerConfigDef(c.name))) {
    return alterDynamicBrokerConfigs(ctx, resourceName, changes, replace, validateOnly);
  }
  if (resourceType === RESOURCE_TYPE.BROKER || resourceType === RESOURCE_TYPE.BROKER_LOGGER) {
    const names = changes.map((c) => c.name).join(', ');
    return refused(
      'INVALID_CONFIG',
      `klog takes broker configs at start only (klog serve flags or --config): cannot change ${names || 'them'} at run time`,
    );
  }
  if (resourceType !== RESOURCE_TYPE.TOPIC && resourceType !== RESOURCE_TYPE.GROUP) {
    return refused(
      'INVALID_REQUEST',
      `klog alters topic (2) and group (32) configs, not resource type ${resourceType}`,
    );
  }
  const seen = new Set<string>();
  for (const c of changes) {
    if (seen.has(c.name)) return refused('INVALID_REQUEST', `Error due to duplicate config keys: ${c.name}`);
    seen.add(c.name);
  }
  if (resourceType === RESOURCE_TYPE.GROUP)
    return alterGroupConfigs(ctx, resourceName, changes, replace, validateOnly);
  const invalid = ctx.log.invalidTopicName(resourceName);
  if (invalid !== undefined) return refused('INVALID_TOPIC_EXCEPTION', invalid);
  if (!ctx.log.topics().has(resourceName))
    return refused('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${resourceName}' does not exist.`);
  const next = new Map(replace ? [] : ctx.topicConfigs.own(resourceName));
  for (const c of changes) {
    const def = topicConfigDef(c.name);
    if (c.operation === CONFIG_OPERATION.DELETE) {
      if (def === undefined) return refused('INVALID_CONFIG', reasonFor(c.name));
      next.delete(c.name);
      continue;
    }
    if (c.operation === CONFIG_OPERATION.APPEND || c.operation === CONFIG_OPERATION.SUBTRACT) {
      if (def === undefined) return refused('INVALID_CONFIG', reasonFor(c.name));
      if (def.type !== 'LIST') {
        const what = c.operation === CONFIG_OPERATION.APPEND ? 'append' : 'subtract';
        return refused('INVALID_CONFIG', `Config value ${what} is not allowed for config key: ${c.name}`);
      }
      const items = (next.get(c.name) ?? def.defaultValue).split(',').filter((s) => s !== '');
      const given = (c.value ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      const list =
        c.operation === CONFIG_OPERATION.APPEND
          ? [...items, ...given.filter((g) => !items.includes(g))]
          : items.filter((i) => !given.includes(i));
      const checked = checkTopicConfig(c.name, list.join(','));
      if (!checked.ok) return refused('INVALID_CONFIG', checked.reason);
      next.set(c.name, checked.value);
      continue;
    }
    if (c.operation !== CONFIG_OPERATION.SET) {
      return refused('INVALID_REQUEST', `Unknown config operation ${c.operation} for ${c.name}`);
    }
    const checked = checkTopicConfig(c.name, c.value);
    if (!checked.ok) return refused('INVALID_CONFIG', checked.reason);
    next.set(c.name, checked.value);
  }
  if (!validateOnly) {
    ctx.topicConfigs.set(resourceName, next);
    const shown = [...next].map(([k, v]) => `${k}=${v}`).join(', ');
    ctx.logger.info(`topic ${resourceName}: configs now ${shown || '(none of its own)'}`);
  }
  return { kind: 'ok' };
}

/**
 * A group's configs altered as Kafka's `ControllerConfigurationValidator` checks a GROUP resource: a name that
 * is not empty (the group need not exist), SET and DELETE only (no group config is a list), then the whole new
 * set checked by `GroupConfig.validate` against the broker's bounds (INVALID_CONFIG, naming the bound) before
 * it is stored durably.
 */
function alterGroupConfigs(
  ctx: AlterContext,
  group: string,
  changes: readonly ConfigChange[],
  replace: boolean,
  validateOnly: boolean,
): AlterOutcome {
  if (group === '') return refused('INVALID_REQUEST', 'Group name must not be empty.');
  const next = new Map<string, string | null>(replace ? [] : ctx.groupConfigs.get(group));
  for (const c of changes) {
    if (c.operation === CONFIG_OPERATION.DELETE) next.delete(c.name);
    else if (c.operation === CONFIG_OPERATION.SET) next.set(c.name, c.value);
    else if (c.operation === CONFIG_OPERATION.APPEND || c.operation === CONFIG_OPERATION.SUBTRACT) {
      const what = c.operation === CONFIG_OPERATION.APPEND ? 'append' : 'subtract';
      return refused('INVALID_CONFIG', `Config value ${what} is not allowed for config key: ${c.name}`);
    } else return refused('INVALID_REQUEST', `Unknown config operation ${c.operation} for ${c.name}`);
  }
  const checked = validateGroupConfigs(next, groupConfigBounds(ctx.config));
  if (!checked.ok) return refused('INVALID_CONFIG', checked.reason);
  if (!validateOnly) {
    ctx.groupConfigs.set(group, checked.value);
    const shown = [...checked.value].map(([k, v]) => `${k}=${v}`).join(', ');
    ctx.logger.info(`group ${group}: configs now ${shown || '(none of its own)'}`);
  }
  return { kind: 'ok' };
}

/**
 * This broker's dynamic configs klog stores (`DYNAMIC_BROKER_CONFIGS`), altered as Kafka's
 * `ConfigAdminManager` and `DynamicBrokerConfig` alter per-broker ones: for this broker's id only (they are
 * per-broker configs, which Kafka refuses at the cluster-default level), SET and DELETE, each value checked
 * by its row, then stored durably.
 */
function alterDynamicBrokerConfigs(
  ctx: AlterContext,
  broker: string,
  changes: readonly ConfigChange[],
  replace: boolean,
  validateOnly: boolean,
): AlterOutcome {
  const names = changes.map((c) => c.name).join(', ');
  if (broker === '')
    return refused(
      'INVALID_REQUEST',
      `Cannot update these configs at default cluster level, broker id must be specified: ${names}`,
    );
  if (broker !== String(ctx.config.nodeId))
    return refused(
      'INVALID_REQUEST',
      `Broker ${broker} does not exist: this is broker ${ctx.config.nodeId}.`,
    );
  const next = new Map(replace ? [] : ctx.dynamicBrokerConfigs.get(broker));
  for (const c of changes) {
    if (c.operation === CONFIG_OPERATION.DELETE) {
      next.delete(c.name);
      continue;
    }
    if (c.operation !== CONFIG_OPERATION.SET) {
      return refused(
        'INVALID_CONFIG',
        `Config value append or subtract is not allowed for config key: ${c.name}`,
      );
    }
    const checked = checkDynamicBrokerConfig(c.name, c.value);
    if (!checked.ok) return refused('INVALID_CONFIG', checked.reason);
    next.set(c.name, checked.value);
  }
  if (!validateOnly) {
    ctx.dynamicBrokerConfigs.set(broker, next);
    const shown = [...next].map(([k, v]) => `${k}=${v}`).join(', ');
    ctx.logger.info(`broker ${broker}: dynamic configs now ${shown || '(none)'}`);
  }
  return { kind: 'ok' };
}
