/**
 * Chaos on three gateways over one PostgreSQL database: the run of `gateway-chaos.test.ts`
 * (seeded random provider faults, 20 sessions × 25 messages with concurrent sends inside
 * sessions) with every message sent to a random gateway, and three `kill -9`s spread across the
 * gateways (each restarted); clients retry with their `clientMessageId` on a random live gateway.
 * Same assertions, transcripts read from the database, no lease row left after the graceful
 * stops (see `support/run-chaos.ts`). `KEEL_CHAOS_SEED` changes the seed.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import { describe, expect, it } from 'vitest';
import { leaseRows, transcriptReader } from './support/postgres-sessions';
import { runChaos } from './support/run-chaos';
import { useGateways } from './support/use-gateways';

const SEED = Number(process.env['KEEL_CHAOS_SEED'] ?? 4242);
const database = useTestDatabase();
const group = useGateways();

describe(`chaos over PostgreSQL, 3 gateways (seed ${SEED})`, () => {
  it('every message gets exactly one outcome through faults and kill -9s spread across the gateways', {
    timeout: 900_000,
  }, async () => {
    const reader = transcriptReader(database);
    const summary = await runChaos({
      seed: SEED,
      sessions: 20,
      messages: 25,
      kills: 3,
      gateways: 3,
      group,
      storage: {
        name: 'PostgreSQL',
        // A short lease: a killed gateway's sessions are free again five seconds after it died.
        config: { storage: { kind: 'postgres', url: database.url, leaseTtlMs: 5_000 } },
        read: (sessionId) => reader.read(sessionId),
        leftLeases: async () => (await leaseRows(database)).map((lease) => lease.sessionId),
      },
    });
    expect(summary.restarts).toBe(3);
    expect(summary.outcomes.reply).toBeGreaterThan(0);
  });
});
