import type { MockProvider } from '@keel/testing';

export interface SharedGatewayConfigOptions {
  mock: Pick<MockProvider, 'anthropicBaseUrl'>;
  /** The database every gateway of the test shares. */
  databaseUrl: string;
  /** The primary model's name (scopes the mock's scripted answers to the test). */
  model: string;
  leaseTtlMs?: number;
  /** `storage.turnClaims` (one running turn per session across the gateways; on by default). */
  turnClaims?: Record<string, unknown>;
  /** `storage.gatewayId`; default the gateway's own (host, pid and a random part). */
  gatewayId?: string;
  /** Merged over the defaults below. */
  turn?: Record<string, unknown>;
  plugins?: unknown[];
}

/**
 * A gateway configuration over PostgreSQL: one provider (the mock, one key), sessions, leases
 * and provider health in the shared database, and waits far longer than any test needs (a busy
 * session's lease is waited for, never given up on).
 */
export function sharedGatewayConfig(options: SharedGatewayConfigOptions): Record<string, unknown> {
  return {
    providers: [
      {
        id: 'anthropic',
        api: 'anthropic-messages',
        baseUrl: options.mock.anthropicBaseUrl,
        profiles: [{ id: 'k1', apiKey: 'key-1' }],
      },
    ],
    models: { primary: `anthropic/${options.model}` },
    storage: {
      kind: 'postgres',
      url: options.databaseUrl,
      ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
      ...(options.turnClaims === undefined ? {} : { turnClaims: options.turnClaims }),
      ...(options.gatewayId === undefined ? {} : { gatewayId: options.gatewayId }),
    },
    turn: { lockTimeoutMs: 300_000, ...options.turn },
    ...(options.plugins === undefined ? {} : { plugins: options.plugins }),
    logging: { level: 'info' },
  };
}
