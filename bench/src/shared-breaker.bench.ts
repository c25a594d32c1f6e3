/**
 * Row 5: 50 sessions hit an overloaded primary at once. Requests the primary receives with the
 * orchestrator's shared provider health (one breaker per provider and model, shared by every
 * session) vs the same orchestrator with a health port that never opens anything.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrchestrator, createProviderHealth } from '@keel/orchestrator';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { ProviderHealth } from '@keel/spec';
import { createMockProvider, mockFaults } from '@keel/testing';
import { createTransport } from '@keel/transport';
import { pick } from './lib/env';
import { publish } from './lib/result';
import { median } from './lib/stats';

const SESSIONS = pick(50, 10);
const ROUNDS = pick(5, 1);
const PRIMARY = 'primary-model';
const KEYS = ['sk-1', 'sk-2'];

/** A provider health that allows every request and remembers nothing: no breaker, no cooldown. */
const noHealth: ProviderHealth = {
  permit: async () => ({ allowed: true, probe: false }),
  report: async () => {},
  snapshot: async () => ({ breakers: [], cooldowns: [] }),
  subscribe: () => () => {},
};

const mock = await createMockProvider({ defaultReply: () => 'from the fallback' });
const dir = await mkdtemp(join(tmpdir(), 'keel-bench-breaker-'));
const storage = createTranscriptStore({ sessionsDir: dir });

/** Runs one wave of `SESSIONS` concurrent turns; returns the requests the primary got. */
async function wave(health: ProviderHealth, label: string, model: string): Promise<number> {
  const orchestrator = createOrchestrator({
    storage,
    fences: (sessionId) => createSessionFence({ storage, sessionId }),
    providers: [
      { id: 'primary', profiles: KEYS.map((_, index) => ({ id: `key${index + 1}` })) },
      { id: 'backup', profiles: [{ id: 'main' }] },
    ],
    models: { primary: `primary/${model}`, fallbacks: ['backup/fallback-model'] },
    health,
    router: {
      connect: (target) =>
        createTransport({
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          apiKey: target.providerId === 'backup' ? 'sk-backup' : `sk-${target.profileId.slice(3)}`,
          model: target.model,
        }),
    },
  });
  const before = mock.requests.filter((request) => request.model === model).length;
  const outcomes = await Promise.all(
    Array.from({ length: SESSIONS }, (_, index) =>
      orchestrator.runTurn({ sessionId: `${label}-${index}`, input: 'hello' }),
    ),
  );
  if (outcomes.some((outcome) => outcome.kind !== 'reply'))
    throw new Error(`a turn did not reply: ${outcomes.map((outcome) => outcome.kind).join()}`);
  await orchestrator.shutdown({ graceMs: 0 });
  return mock.requests.filter((request) => request.model === model).length - before;
}

const counts = {
  breaker: [] as number[],
  none: [] as number[],
  breakerLater: [] as number[],
  noneLater: [] as number[],
};
for (let round = 0; round < ROUNDS; round += 1) {
  for (const variant of round % 2 === 0 ? ['breaker', 'none'] : ['none', 'breaker']) {
    const model = `${PRIMARY}-${round}-${variant}`;
    mock.enqueue({ behavior: mockFaults.overloaded(), match: { model }, times: 1e9 });
    // One health for both waves of a variant: the second wave comes after the first gave up.
    const health = variant === 'breaker' ? createProviderHealth() : noHealth;
    const first = await wave(health, `${model}-a`, model);
    const later = await wave(health, `${model}-b`, model);
    if (variant === 'breaker') {
      counts.breaker.push(first);
      counts.breakerLater.push(later);
    } else {
      counts.none.push(first);
      counts.noneLater.push(later);
    }
  }
}

const range = (values: number[]) =>
  `${median(values)} (${Math.min(...values)}–${Math.max(...values)})`;
const total = (first: number[], later: number[]) =>
  first.map((value, index) => value + (later[index] ?? 0));
const withBreaker = median(total(counts.breaker, counts.breakerLater));
const without = median(total(counts.none, counts.noneLater));
await publish({
  order: 5,
  title: '5. Shared breaker',
  method: `${SESSIONS} sessions send a message at the same instant to one orchestrator (in process: real transport, real file store and fence); the primary model is overloaded on both of its keys, the fallback is healthy. Then, once all have answered, ${SESSIONS} more sessions do the same. ${ROUNDS} rounds, the two variants alternating, each round with a model of its own. Every turn ends with the fallback's reply in both variants; what differs is the load on the struggling provider.`,
  baseline:
    'the same orchestrator with a provider health that never opens a breaker (every request allowed), in the same run.',
  tables: [
    {
      table: {
        columns: [
          'variant',
          `requests to the primary: ${SESSIONS} sessions at once (median, range)`,
          `the next ${SESSIONS} sessions`,
          'both waves (median)',
          'per session',
        ],
        rows: [
          [
            'without a breaker',
            range(counts.none),
            range(counts.noneLater),
            String(without),
            (without / (2 * SESSIONS)).toFixed(2),
          ],
          [
            'shared breaker (`createProviderHealth`)',
            range(counts.breaker),
            range(counts.breakerLater),
            String(withBreaker),
            (withBreaker / (2 * SESSIONS)).toFixed(2),
          ],
        ],
      },
    },
  ],
  targets: [
    {
      name: `requests to the overloaded primary over both waves (${2 * SESSIONS} sessions)`,
      goal: 'fewer with the breaker (the issue sets no number)',
      measured: `${withBreaker} vs ${without} (${((1 - withBreaker / without) * 100).toFixed(0)} % fewer)`,
      met: withBreaker < without,
    },
  ],
  notes: [
    `Without a breaker every session pays the overload itself: two requests each (its one profile rotation). Sessions that arrive at the same instant all send theirs before any turn has given up on the model (a rotation is never blocked by the breaker its own first error would open), so the burst itself costs about the same with and without; the breaker opens when the first of them gives up, and from then on every session skips the model without a request (the next wave sends none) until its cooldown lets one probe through.`,
  ],
});
await mock.close();
await rm(dir, { recursive: true, force: true });
