/**
 * @keel/orchestrator: one-turn round trips through the orchestrator (real file store and fence,
 * fsync on) vs the bare transport, both against the zero-delay loopback mock provider, interleaved
 * in rounds after a warm-up. Target: p50 overhead ≤ 1 ms.
 * Run: `cd bench && pnpm exec tsx src/orchestrator-overhead.bench.ts` (uses the built dist).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrchestrator } from '@keel/orchestrator';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import { createMockProvider } from '@keel/testing';
import { createTransport } from '@keel/transport';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 400);
const WARMUP = 50;

const mock = await createMockProvider({ defaultReply: () => 'ok' });
const dir = await mkdtemp(join(tmpdir(), 'keel-bench-orchestrator-'));
const transport = createTransport({
  api: 'anthropic-messages',
  baseUrl: mock.anthropicBaseUrl,
  apiKey: 'bench',
  model: 'bench-model',
  maxTokens: 64,
});
const storage = createTranscriptStore({ sessionsDir: dir, fsync: true });
const orchestrator = createOrchestrator({
  storage,
  fences: (sessionId) => createSessionFence({ storage, sessionId }),
  providers: [{ id: 'anthropic', profiles: [{ id: 'main' }] }],
  models: { primary: 'anthropic/bench-model' },
  router: { connect: () => transport },
});

async function bare(index: number): Promise<void> {
  for await (const event of transport.stream(
    { messages: [{ role: 'user', content: `hello ${index}` }] },
    { maxRetries: 0 },
  )) {
    void event;
  }
}

async function turn(index: number): Promise<void> {
  const outcome = await orchestrator.runTurn({
    sessionId: `bench-${index % 8}`,
    input: `hello ${index}`,
  });
  if (outcome.kind !== 'reply') throw new Error(`turn ${index} ended ${outcome.kind}`);
}

const variants = { 'bare transport': bare, 'orchestrator turn': turn } as const;
const samples = new Map<string, number[]>(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < WARMUP + ROUNDS; round += 1) {
  const order = round % 2 === 0 ? Object.entries(variants) : Object.entries(variants).reverse();
  for (const [name, run] of order) {
    const started = performance.now();
    await run(round);
    if (round >= WARMUP) samples.get(name)!.push(performance.now() - started);
  }
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const base = samples.get('bare transport')!;
console.log(
  `node ${process.version}, ${ROUNDS} rounds each, interleaved after ${WARMUP} warm-up rounds`,
);
console.log('| variant | p50 ms | p90 ms | p99 ms | ratio p50 |');
console.log('| --- | --- | --- | --- | --- |');
for (const [name, values] of samples) {
  const p50 = quantile(values, 0.5);
  console.log(
    `| ${name} | ${p50.toFixed(3)} | ${quantile(values, 0.9).toFixed(3)} | ${quantile(values, 0.99).toFixed(3)} | ${(p50 / quantile(base, 0.5)).toFixed(2)}× |`,
  );
}
const overhead = quantile(samples.get('orchestrator turn')!, 0.5) - quantile(base, 0.5);
console.log(
  `p50 overhead of a turn: ${overhead.toFixed(3)} ms (target ≤ 1 ms: ${overhead <= 1 ? 'met' : 'NOT met'})`,
);
await orchestrator.shutdown({ graceMs: 0 });
await mock.close();
await rm(dir, { recursive: true, force: true });
