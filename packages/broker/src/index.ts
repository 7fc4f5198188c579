export { ADVERTISED_APIS, type AdvertisedApi } from './api/advertised.js';
export {
  BROKER_CONFIGS,
  type BrokerConfigDef,
  brokerConfigFlag,
  type SettingValue,
} from './config/broker-configs.js';
export {
  type BrokerConfig,
  type BrokerOptions,
  CONFIG_TABLES,
  ConfigError,
  type ConfigTables,
  resolveConfig,
} from './config/config.js';
export {
  type ConfigTypeName,
  flagOfName,
  type Parsed,
  parseConfigValue,
  type Validator,
  validatorText,
} from './config/config-def.js';
export {
  brokerFlagOf,
  type CoarseSynonym,
  TOPIC_CONFIGS,
  type TopicConfigDef,
} from './config/topic-config.js';
export { type EmbeddedKafka, type EmbeddedKafkaOptions, startKafka } from './embedded.js';
export { createLogger, LOG_LEVELS, type Logger, type LogLevel, SILENT } from './logging/logger.js';
export type { ConnectionStats } from './network/connection.js';
export { Broker, type StartOptions } from './server.js';
export { MetaPropertiesError } from './state/meta-properties.js';
export { PRODUCER_ID_BLOCK_SIZE, ProducerIdFileError } from './state/producer-id-manager.js';
export { FaultInjector, type FaultPlan, type ProduceFault, type WrittenBatch } from './teaching/faults.js';
