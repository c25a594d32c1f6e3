import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { OrchestratorOptions } from '@keel/orchestrator';
import type { KeelConfig } from '../config/config-schema';

/** The lease ttl of `@keel/session-store-postgres` when `storage.leaseTtlMs` is not set. */
const DEFAULT_LEASE_TTL_MS = 10_000;

/**
 * The orchestrator's turn-claim options from `storage`: over PostgreSQL (unless
 * `storage.turnClaims.enabled` is false) this gateway's id and the claims' ttl and poll; with the
 * file store (one gateway) none, so turns are not claimed.
 */
export function turnClaimsOption(config: KeelConfig): {
  gatewayId?: string;
  turnClaims?: OrchestratorOptions['turnClaims'];
} {
  const { storage } = config;
  if (storage.kind !== 'postgres' || !storage.turnClaims.enabled) return {};
  const { ttlMs, pollMs } = storage.turnClaims;
  return {
    gatewayId: storage.gatewayId ?? defaultGatewayId(),
    turnClaims: {
      ttlMs: ttlMs ?? storage.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
      ...(pollMs === undefined ? {} : { pollMs }),
    },
  };
}

/** `<hostname>:<pid>:<8 random hex digits>`: unique even for two processes given the same pid. */
export function defaultGatewayId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}
