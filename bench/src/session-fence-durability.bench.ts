/**
 * @keel/session-fence: the cost of durability (issue 8 §3), each variant against the plain-fs
 * baseline measured in the same run, interleaved round by round after a warm-up.
 *
 * - durable `store.append` of one entry vs async open + appendFile + sync + close of the same line
 *   (target ≤ 1.5×);
 * - a turn's whole fence cycle (acquire → release → reacquire → append → end) vs one durable
 *   append (target ≤ 4×);
 * - lock acquire + release vs open('wx') + close + unlink (target ≤ 2×).
 *
 * It also counts the file system requests each operation issues (async_hooks sees each one).
 * Run: `pnpm bench durability` (uses the built dist).
 */
import { createHook } from 'node:async_hooks';
import { mkdtemp, open, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSessionFence,
  createSessionLock,
  createTranscriptStore,
  type MessageEntry,
} from '@keel/session-fence';

const warmup = 50;
const rounds = Number(process.env['KEEL_BENCH_ROUNDS'] ?? 400);

const entry = (id: string): MessageEntry => ({
  type: 'message',
  id,
  messageId: id,
  timestamp: '2026-01-01T00:00:00.000Z',
  role: 'assistant',
  content: [{ type: 'text', text: 'There are two files: a.txt and b.txt.' }],
});

let fsRequests = 0;
createHook({
  init(_id, type) {
    if (type === 'FSREQCALLBACK' || type === 'FSREQPROMISE') fsRequests += 1;
  },
}).enable();

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

interface Variant {
  name: string;
  run(round: number): Promise<unknown>;
  times: number[];
  requests: number;
}

const dir = await mkdtemp(join(tmpdir(), 'keel-bench-durability-'));
try {
  const store = createTranscriptStore({ sessionsDir: join(dir, 'sessions') });
  const line = `${JSON.stringify(entry('baseline'))}\n`;
  const baselinePath = join(dir, 'baseline.jsonl');
  const lockBaselinePath = join(dir, 'baseline.lock');
  const lock = createSessionLock({ path: join(dir, 'bench.lock') });
  await store.append('append', [entry('first')]);
  await store.append('fence', [entry('first')]);

  const variants: Variant[] = (
    [
      {
        name: 'plain append: open + appendFile + sync + close',
        async run() {
          const handle = await open(baselinePath, 'a');
          try {
            await handle.appendFile(line);
            await handle.sync();
          } finally {
            await handle.close();
          }
        },
      },
      {
        name: 'store.append (durable, one entry)',
        run: (round: number) => store.append('append', [entry(`a${round}`)]),
      },
      {
        name: 'fence cycle: acquire, release, reacquire, append, end',
        async run(round: number) {
          const fence = createSessionFence({ storage: store, sessionId: 'fence' });
          await fence.acquire();
          await fence.release();
          await fence.reacquire();
          await fence.append([entry(`f${round}`)]);
          await fence.end();
        },
      },
      {
        name: "plain lock: open('wx') + close + unlink",
        async run() {
          const handle = await open(lockBaselinePath, 'wx');
          await handle.close();
          await unlink(lockBaselinePath);
        },
      },
      {
        name: 'lock acquire + release',
        async run() {
          const handle = await lock.acquire();
          await handle.release();
        },
      },
    ] satisfies Array<Pick<Variant, 'name' | 'run'>>
  ).map((variant) => ({ ...variant, times: [], requests: 0 }));

  for (let round = -warmup; round < rounds; round += 1) {
    // Rotate the order each round so no variant always runs right after the same one.
    for (let index = 0; index < variants.length; index += 1) {
      const variant = variants[(index + Math.max(0, round)) % variants.length] as Variant;
      const requestsBefore = fsRequests;
      const started = process.hrtime.bigint();
      await variant.run(round + warmup);
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      if (round >= 0) variant.times.push(elapsed);
      variant.requests = fsRequests - requestsBefore;
    }
  }

  const [plainAppend, storeAppend, fenceCycle, plainLock, lockCycle] = variants as [
    Variant,
    Variant,
    Variant,
    Variant,
    Variant,
  ];
  console.log(
    `@keel/session-fence durability, ${rounds} rounds after ${warmup} warm-up, interleaved`,
  );
  console.table(
    variants.map((variant) => ({
      operation: variant.name,
      'median ms': median(variant.times).toFixed(3),
      'p90 ms': percentile(variant.times, 0.9).toFixed(3),
      'fs requests': variant.requests,
    })),
  );
  for (const [label, measured, baseline, target] of [
    ['durable append / plain append', storeAppend, plainAppend, 1.5],
    ['fence cycle / durable append', fenceCycle, storeAppend, 4],
    ['lock acquire+release / plain lock', lockCycle, plainLock, 2],
  ] as const) {
    const ratio = median(measured.times) / median(baseline.times);
    console.log(
      `${label}: ${ratio.toFixed(2)}× ${ratio <= target ? `(within the ${target}× target)` : `(OVER the ${target}× target)`}`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
