export { ADVERTISED_APIS, type AdvertisedApi } from './advertised.js';
export {
  BOUNDS,
  type BrokerConfig,
  type BrokerOptions,
  ConfigError,
  DEFAULT_CONFIG,
  resolveConfig,
} from './config.js';
export type { ConnectionStats } from './connection.js';
export { FaultInjector, type FaultPlan, type ProduceFault, type WrittenBatch } from './faults.js';
export { createLogger, LOG_LEVELS, type Logger, type LogLevel, SILENT } from './logger.js';
export { MetaPropertiesError } from './meta-properties.js';
export { PRODUCER_ID_BLOCK_SIZE, ProducerIdFileError } from './producer-id-manager.js';
export { Broker, type StartOptions } from './server.js';
