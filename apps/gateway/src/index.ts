export type { GatewayRuntime } from './compose/create-runtime';
export type { ConfigProblem } from './config/config-error';
export { ConfigError } from './config/config-error';
export type { KeelConfig, KeelConfigInput, ProviderConfig } from './config/config-schema';
export { configSchema } from './config/config-schema';
export type { ConfigSource, LoadConfigOptions, LoadedConfig } from './config/load-config';
export { loadConfig } from './config/load-config';
export type { Gateway, GatewayOptions } from './create-gateway';
export { createGateway } from './create-gateway';
