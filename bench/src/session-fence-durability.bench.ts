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
 * It also counts the thread-pool round trips (async fs requests) each operation makes
 * (async_hooks sees each one; the store's synchronous metadata calls make none).
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
import { pick } from './lib/env';
import { publish } from './lib/result';
import { ms, ratio, spread, summarize } from './lib/stats';

const warmup = pick(50, 5);
const rounds = pick(400, 30);

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
  const p50 = (variant: Variant) => summarize(variant.times).p50;
  const baselineOf = new Map<Variant, Variant>([
    [storeAppend, plainAppend],
    [fenceCycle, storeAppend],
    [lockCycle, plainLock],
  ]);
  const checks = [
    ['durable append', storeAppend, plainAppend, 1.5],
    ["a turn's fence cycle", fenceCycle, storeAppend, 4],
    ['lock acquire + release', lockCycle, plainLock, 2],
  ] as const;
  await publish({
    order: 10,
    title: 'Issue 8 §3: the cost of durability',
    method: `Each operation against the plain \`fs\` calls that do the same work, measured in the same run: ${rounds} rounds after ${warmup} warm-up rounds, the order rotating each round; fsync on (the store's default). "Thread-pool round trips" counts the async fs requests an operation makes (each one a libuv thread-pool round trip).`,
    baseline:
      "plain async `open` + `appendFile` + `sync` + `close` of the same line for an append; one durable append for the fence cycle; `open('wx')` + `close` + `unlink` for the lock.",
    tables: [
      {
        table: {
          columns: [
            'operation',
            'p50 ms',
            'p10–p90 ms',
            'vs its baseline',
            'thread-pool round trips',
          ],
          rows: variants.map((variant) => {
            const base = baselineOf.get(variant);
            return [
              variant.name,
              ms(p50(variant)),
              spread(summarize(variant.times)),
              base === undefined
                ? 'baseline'
                : `${ratio(p50(variant), p50(base))} of ${base.name.split(':')[0]}`,
              String(variant.requests),
            ];
          }),
        },
      },
    ],
    targets: checks.map(([label, measured, base, goal]) => {
      const value = p50(measured) / p50(base);
      return {
        name: `${label} / ${base.name.split(':')[0]}`,
        goal: `≤ ${goal}×`,
        measured: `${value.toFixed(2)}×`,
        met: value <= goal,
        why: 'see the p10–p90 spread: fsync latency on this shared disk varies with the other runs',
      };
    }),
    notes: [],
  });
} finally {
  await rm(dir, { recursive: true, force: true });
}
