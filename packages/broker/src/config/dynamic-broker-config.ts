import {
  type ConfigTypeName,
  LONG_MAX,
  type Parsed,
  parseConfigValue,
  type Validator,
} from './config-def.js';

/**
 * Kafka's broker configs that AlterConfigs may change at run time (`DynamicBrokerConfig`'s reconfigurable
 * ones) and klog has nothing to act on: accepted for this broker, checked by type, stored
 * (`.broker/broker-configs.json`) and described as DYNAMIC_BROKER_CONFIG, so that a client that sets one
 * (librdkafka 0081 sets `sasl.kerberos.min.time.before.relogin`) gets what Kafka answers. klog's own settings
 * (`BROKER_CONFIGS`, the topic configs' broker defaults) stay taken at start only.
 */
export interface DynamicBrokerConfigDef {
  readonly name: string;
  readonly type: ConfigTypeName;
  readonly defaultValue: string;
  readonly validator: Validator;
  readonly doc: string;
}

export const DYNAMIC_BROKER_CONFIGS: readonly DynamicBrokerConfigDef[] = [
  {
    // Kafka's SaslConfigs: a LONG with no validator, reconfigurable per listener (DynamicListenerConfig).
    name: 'sasl.kerberos.min.time.before.relogin',
    type: 'LONG',
    defaultValue: '60000',
    validator: { kind: 'range', min: -LONG_MAX, max: LONG_MAX },
    doc: 'the least time between two Kerberos logins (klog stores this config but does not act on it: it has no SASL)',
  },
];

const BY_NAME = new Map(DYNAMIC_BROKER_CONFIGS.map((d) => [d.name, d]));

export function dynamicBrokerConfigDef(name: string): DynamicBrokerConfigDef | undefined {
  return BY_NAME.get(name);
}

/** A dynamic broker config's value, checked by its row: normalised, or why not. */
export function checkDynamicBrokerConfig(name: string, value: string | null): Parsed {
  const def = BY_NAME.get(name);
  if (def === undefined) return { ok: false, reason: `${name} is not a dynamic broker config klog stores` };
  if (value === null) return { ok: false, reason: `Null value not supported for broker config ${name}` };
  const parsed = parseConfigValue(def.validator, value);
  return parsed.ok
    ? parsed
    : { ok: false, reason: `Invalid value ${value} for configuration ${name}: ${parsed.reason}` };
}
