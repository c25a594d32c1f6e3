/**
 * Chaos on three gateways over one PostgreSQL database: the run of `gateway-chaos.test.ts`
 * (seeded random provider faults, 20 sessions × 25 messages with concurrent sends inside
 * sessions) with every message sent to a random gateway, and three `kill -9`s spread across the
 * gateways (each restarted); clients retry with their `clientMessageId` on a random live gateway.
 * Same assertions, transcripts read from the database, no lease row left after the graceful
 * stops (see `support/run-chaos.ts`) but those the killed gateways held. `KEEL_CHAOS_SEED` changes
 * the seed; `KEEL_CHAOS_KILLS` the number of `kill -9`s (12 found, in a quarter of its runs, a
 * client's retry stored twice that 3 found once in many dozens: a stress setting, not for CI).
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import { describe, expect, it } from 'vitest';
import { leaseRows, transcriptReader } from './support/postgres-sessions';
import { runChaos } from './support/run-chaos';
import { useGateways } from './support/use-gateways';

const SEED = Number(process.env['KEEL_CHAOS_SEED'] ?? 4242);
const KILLS = Number(process.env['KEEL_CHAOS_KILLS'] ?? 3);
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
      kills: KILLS,
      gateways: 3,
      group,
      storage: {
        name: 'PostgreSQL',
        // A short lease: a killed gateway's sessions are free again five seconds after it died.
        config: { storage: { kind: 'postgres', url: database.url, leaseTtlMs: 5_000 } },
        read: (sessionId) => reader.read(sessionId),
        // A killed gateway's lease stays until another gateway takes the session (its holder
        // names the gateway's pid, as `host:pid:…`).
        leftLeases: async (_dir, killedPids) =>
          (await leaseRows(database))
            .filter((lease) => !killedPids.includes(Number(lease.holder.split(':')[1])))
            .map((lease) => lease.sessionId),
      },
    });
    expect(summary.restarts).toBe(KILLS);
    expect(summary.outcomes.reply).toBeGreaterThan(0);
  });
});
