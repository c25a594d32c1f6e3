import { access, constants } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createProviderHealth } from '@keel/orchestrator';
import { createTranscriptStore, StorageError } from '@keel/session-fence';
import type { ProviderHealth, SessionStorage } from '@keel/spec';
import type { KeelConfig } from '../config/config-schema';
import { type PostgresModule, requirePostgres } from './postgres-module';
import { type StorageStatus, watchStorage } from './storage-status';

/** The provider-health options both healths take (the in-process and the PostgreSQL one). */
type HealthRules = NonNullable<Parameters<typeof createProviderHealth>[0]>;

/** Where sessions and provider health live, and how to let go of them at shutdown. */
export interface StorageSetup {
  storage: SessionStorage;
  health: ProviderHealth;
  /** Whether other gateways may share these sessions (then recovery waits before answering). */
  shared: boolean;
  /** The store's failures, skipped lines and readiness (`/healthz`). */
  status: StorageStatus;
  close(): Promise<void>;
}

/**
 * The file store and in-process health (one gateway, the default), or PostgreSQL for both —
 * sessions, leases with fencing tokens and provider health every gateway on the database shares
 * (`postgres`: the package, loaded by `loadPostgres`).
 */
export function createStorage(config: KeelConfig, postgres?: PostgresModule): StorageSetup {
  const rules = healthRulesOf(config);
  if (config.storage.kind === 'postgres') {
    const { createPostgresProviderHealth, createPostgresSessionStorage } =
      requirePostgres(postgres);
    const { url, leaseTtlMs, timeouts } = config.storage;
    const storage = createPostgresSessionStorage({
      connectionString: url,
      ...(leaseTtlMs === undefined ? {} : { lease: { ttlMs: leaseTtlMs } }),
      ...(timeouts === undefined ? {} : { timeouts }),
    });
    const health = createPostgresProviderHealth({
      connectionString: url,
      ...(timeouts === undefined ? {} : { timeouts }),
      ...rules,
    });
    return {
      storage,
      health,
      shared: true,
      status: watchStorage(storage, (signal) => storage.ping({ signal })),
      async close() {
        await Promise.allSettled([storage.close(), health.close()]);
      },
    };
  }
  const storage = createTranscriptStore({
    sessionsDir: config.sessionsDir,
    fsync: config.storage.fsync,
  });
  return {
    storage,
    health: createProviderHealth(rules),
    shared: false,
    status: watchStorage(storage, () => writableDirectory(storage.sessionsDir)),
    // The locks the store keeps between turns are let go here, not only at the process's exit.
    close: () => storage.close(),
  };
}

/**
 * The breaker rules of `health`, by the provider healths' names; a `retry-after` longer than
 * `retry.maxWaitMs` (a turn would not wait that long) opens the breaker at once.
 */
export function healthRulesOf(config: KeelConfig): HealthRules {
  const { health } = config;
  return {
    windowMs: health.windowMs,
    minFailures: health.minFailures,
    failureRatio: health.failureRatio,
    breakerCooldownMs: health.cooldownMs,
    maxBreakerCooldownMs: health.maxCooldownMs,
    probeTimeoutMs: health.probeTimeoutMs,
    longRetryAfterMs: config.retry.maxWaitMs,
  };
}

/**
 * Resolves while the sessions directory (or, before the first session, the nearest folder above it
 * that exists) may be written: a read-only mount or a folder without write permission rejects.
 */
async function writableDirectory(dir: string): Promise<void> {
  for (let current = resolve(dir); ; current = resolve(current, '..')) {
    try {
      await access(current, constants.W_OK);
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'ENOENT' && resolve(current, '..') !== current) continue;
      const reason = code === 'EROFS' ? 'read_only' : code === 'EACCES' ? 'permission' : 'io';
      throw new StorageError({
        reason,
        operation: 'ready',
        code: typeof code === 'string' ? code : undefined,
        cause: error,
      });
    }
  }
}
