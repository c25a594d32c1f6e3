/**
 * Chaos over the file store: the built gateway over a mock provider in seeded random fault mode
 * (resets, 5xx, 529 bursts, 429 with retry-after, mid-stream cuts, hangs), 20 sessions × 25
 * messages with concurrent sends inside sessions, and three `kill -9` + restarts during the run;
 * then the same with three gateways over one sessions folder (each message to a random one, the
 * kills spread across them). Clients retry with their `clientMessageId` until they get an
 * answer. Every message must end with exactly one final outcome, none answered or stored twice, no
 * turn over its request ceiling, every transcript whole with no trailing orphan, and no lock left
 * after a graceful stop (see `support/run-chaos.ts`). `KEEL_CHAOS_SEED` changes the seed,
 * `KEEL_CHAOS_KILLS` the number of `kill -9`s (more is a stress setting, not for CI).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTranscriptStore } from '@keel/session-fence';
import { describe, expect, it } from 'vitest';
import { runChaos } from './support/run-chaos';
import { useGateways } from './support/use-gateways';

const SEED = Number(process.env['KEEL_CHAOS_SEED'] ?? 4242);
const KILLS = Number(process.env['KEEL_CHAOS_KILLS'] ?? 3);
const group = useGateways();

describe(`chaos (seed ${SEED})`, () => {
  it('every message gets exactly one outcome through faults and kill -9 restarts', {
    timeout: 900_000,
  }, async () => {
    await fileStoreChaos(1, 'sessions');
  });

  it('three gateways over one sessions folder, kill -9s spread across them: the same', {
    timeout: 900_000,
  }, async () => {
    const shared = await mkdtemp(join(tmpdir(), 'keel-chaos-shared-'));
    group.defer(() => rm(shared, { recursive: true, force: true }));
    await fileStoreChaos(3, join(shared, 'sessions'));
  });
});

/**
 * The chaos run over the file store, `gateways` of them over `sessionsDir` (relative to each
 * gateway's own folder, as the gateway resolves it, or absolute: one folder for them all).
 */
async function fileStoreChaos(gateways: number, sessionsDir: string) {
  const summary = await runChaos({
    seed: SEED,
    sessions: 20,
    messages: 25,
    kills: KILLS,
    gateways,
    group,
    storage: {
      name: 'file store',
      config: { sessionsDir },
      read: (sessionId, dir) =>
        createTranscriptStore({ sessionsDir: resolve(dir, sessionsDir) }).read(sessionId),
      leftLeases: async (dir, killedPids) => {
        const folder = resolve(dir, sessionsDir);
        const locks = (await readdir(folder)).filter((name) => name.endsWith('.lock'));
        const owners = await Promise.all(
          locks.map(async (name) => {
            const text = await readFile(join(folder, name), 'utf8');
            return { name, pid: pidIn(text) };
          }),
        );
        // A lock of a gateway that was killed is stale; one of a gateway stopped gracefully is not.
        return owners
          .filter((lock) => lock.pid === undefined || !killedPids.includes(lock.pid))
          .map((lock) => `${lock.name} (pid ${lock.pid})`);
      },
    },
  });
  expect(summary.restarts).toBe(KILLS);
  expect(summary.outcomes.reply).toBeGreaterThan(0);
}

/** The pid a lock file names (its owner, as JSON), if it can be read. */
function pidIn(text: string): number | undefined {
  try {
    const owner = JSON.parse(text) as { pid?: unknown };
    return typeof owner.pid === 'number' ? owner.pid : undefined;
  } catch {
    return undefined;
  }
}
