export type {
  AppendOptions,
  AppendResult,
  HealthEvent,
  HealthPermit,
  HealthReport,
  HealthSnapshot,
  LeaseEvent,
  LeaseOptions,
  ModelTarget,
  ProviderHealth,
  SessionLease,
  SessionStorage,
  TranscriptChangeKind,
  TranscriptRead,
  TranscriptState,
} from '@keel/spec';
export type { MigrateOptions, MigrateResult } from './migrate';
export { migrate } from './migrate';
export type { PostgresBudgetLedger, PostgresBudgetLedgerOptions } from './pg-budget-ledger';
export { createPostgresBudgetLedger } from './pg-budget-ledger';
export type {
  CurrentSpend,
  PostgresKeyRecords,
  PostgresKeyRecordsOptions,
} from './pg-key-records';
export { createPostgresKeyRecords } from './pg-key-records';
export type {
  PostgresClient,
  PostgresConnectionOptions,
  PostgresPool,
  PostgresQueryResult,
  PostgresTimeouts,
} from './postgres-pool';
export type {
  PostgresProviderHealth,
  PostgresProviderHealthOptions,
} from './postgres-provider-health';
export { createPostgresProviderHealth } from './postgres-provider-health';
export type {
  PostgresSessionStorage,
  PostgresSessionStorageOptions,
} from './postgres-session-storage';
export { createPostgresSessionStorage } from './postgres-session-storage';
export type {
  InvalidTranscriptEntryErrorOptions,
  PostgresStoreErrorOptions,
  SessionLeaseTimeoutErrorOptions,
  SessionTakeoverErrorOptions,
  StorageErrorOptions,
} from './postgres-store-error';
export {
  InvalidSessionIdError,
  InvalidTranscriptEntryError,
  PostgresStoreError,
  SessionLeaseTimeoutError,
  SessionTakeoverError,
  StorageError,
} from './postgres-store-error';
export { SCHEMA_VERSION } from './schema-migrations';
