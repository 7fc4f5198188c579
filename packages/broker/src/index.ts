export { ADVERTISED_APIS, type AdvertisedApi } from './advertised.js';
export {
  type BrokerConfig,
  type BrokerOptions,
  CONFIG_TABLES,
  ConfigError,
  type ConfigTables,
  resolveConfig,
} from './config.js';
export {
  BROKER_CONFIGS,
  type BrokerConfigDef,
  brokerConfigFlag,
  type SettingValue,
} from './configs/broker-configs.js';
export {
  type ConfigTypeName,
  flagOfName,
  type Parsed,
  parseConfigValue,
  type Validator,
  validatorText,
} from './configs/config-def.js';
export {
  brokerFlagOf,
  type CoarseSynonym,
  TOPIC_CONFIGS,
  type TopicConfigDef,
} from './configs/topic-config.js';
export type { ConnectionStats } from './connection.js';
export { FaultInjector, type FaultPlan, type ProduceFault, type WrittenBatch } from './faults.js';
export { createLogger, LOG_LEVELS, type Logger, type LogLevel, SILENT } from './logger.js';
export { MetaPropertiesError } from './meta-properties.js';
export { PRODUCER_ID_BLOCK_SIZE, ProducerIdFileError } from './producer-id-manager.js';
export { Broker, type StartOptions } from './server.js';
