import { createProviderHealth } from '@keel/orchestrator';
import { createTranscriptStore } from '@keel/session-fence';
import {
  createPostgresProviderHealth,
  createPostgresSessionStorage,
} from '@keel/session-store-postgres';
import type { ProviderHealth, SessionStorage } from '@keel/spec';
import type { KeelConfig } from '../config/config-schema';

/** The provider-health options both healths take (the in-process and the PostgreSQL one). */
type HealthRules = NonNullable<Parameters<typeof createProviderHealth>[0]>;

/** Where sessions and provider health live, and how to let go of them at shutdown. */
export interface StorageSetup {
  storage: SessionStorage;
  health: ProviderHealth;
  /** Whether other gateways may share these sessions (then recovery waits before answering). */
  shared: boolean;
  close(): Promise<void>;
}

/**
 * The file store and in-process health (one gateway, the default), or PostgreSQL for both —
 * sessions, leases with fencing tokens and provider health every gateway on the database shares.
 */
export function createStorage(config: KeelConfig): StorageSetup {
  const rules = healthRulesOf(config);
  if (config.storage.kind === 'postgres') {
    const { url, leaseTtlMs } = config.storage;
    const storage = createPostgresSessionStorage({
      connectionString: url,
      ...(leaseTtlMs === undefined ? {} : { lease: { ttlMs: leaseTtlMs } }),
    });
    const health = createPostgresProviderHealth({ connectionString: url, ...rules });
    return {
      storage,
      health,
      shared: true,
      async close() {
        await Promise.allSettled([storage.close(), health.close()]);
      },
    };
  }
  return {
    storage: createTranscriptStore({
      sessionsDir: config.sessionsDir,
      fsync: config.storage.fsync,
    }),
    health: createProviderHealth(rules),
    shared: false,
    async close() {},
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
