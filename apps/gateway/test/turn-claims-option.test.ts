/**
 * What `storage` gives the orchestrator for turn claims: over PostgreSQL, on by default, with this
 * gateway's id and a claim ttl of the lease ttl unless set; off with the file store or when
 * `turnClaims.enabled` is false.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { turnClaimsOption } from '../src/compose/turn-claims-option';
import { configSchema } from '../src/config/config-schema';

const base = {
  providers: [{ id: 'demo', api: 'demo' }],
  models: { primary: 'demo/model' },
};
const configWith = (storage: Record<string, unknown>) => configSchema.parse({ ...base, storage });

describe('turnClaimsOption', () => {
  it('over PostgreSQL: on, named <hostname>:<pid>:<random>, the claim living the lease ttl', () => {
    const first = turnClaimsOption(configWith({ kind: 'postgres', url: 'postgresql://x/y' }));
    const second = turnClaimsOption(configWith({ kind: 'postgres', url: 'postgresql://x/y' }));
    expect(first.gatewayId).toMatch(new RegExp(`^${hostname()}:${process.pid}:[0-9a-f]{8}$`));
    expect(second.gatewayId).not.toBe(first.gatewayId);
    expect(first.turnClaims).toEqual({ ttlMs: 10_000 });
    const leased = configWith({ kind: 'postgres', url: 'postgresql://x/y', leaseTtlMs: 2_500 });
    expect(turnClaimsOption(leased).turnClaims).toEqual({ ttlMs: 2_500 });
  });

  it('takes gatewayId, ttlMs and pollMs as given', () => {
    const config = configWith({
      kind: 'postgres',
      url: 'postgresql://x/y',
      leaseTtlMs: 2_500,
      gatewayId: 'gw-east-1',
      turnClaims: { ttlMs: 4_000, pollMs: 50 },
    });
    expect(turnClaimsOption(config)).toEqual({
      gatewayId: 'gw-east-1',
      turnClaims: { ttlMs: 4_000, pollMs: 50 },
    });
  });

  it('is off with the file store, and when turnClaims.enabled is false', () => {
    expect(turnClaimsOption(configWith({ kind: 'file' }))).toEqual({});
    const off = configWith({
      kind: 'postgres',
      url: 'postgresql://x/y',
      turnClaims: { enabled: false },
    });
    expect(turnClaimsOption(off)).toEqual({});
  });

  it('refuses a ttl under 100 ms and unknown keys', () => {
    const parse = (turnClaims: unknown) =>
      configSchema.safeParse({
        ...base,
        storage: { kind: 'postgres', url: 'postgresql://x/y', turnClaims },
      }).success;
    expect(parse({ ttlMs: 99 })).toBe(false);
    expect(parse({ ttl: 1_000 })).toBe(false);
    expect(parse({ ttlMs: 100 })).toBe(true);
  });
});
