/**
 * Issue 20, "flat in history" and "flat in sessions": what a turn costs as a conversation grows
 * long and as more sessions are active, through the orchestrator over the real file store (fsync
 * on) and the in-process mock provider. Every variant's turns are interleaved in one run, so the
 * ratios hold on a machine whose load drifts.
 */
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrchestrator, type Orchestrator } from '@keel/orchestrator';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import { createMockProvider } from '@keel/testing';
import { createTransport } from '@keel/transport';
import { pick } from './lib/env';
import { interleave, type Variant } from './lib/interleave';
import { publish } from './lib/result';
import { ms, summarize } from './lib/stats';
import { writeSyntheticTranscript } from './lib/synthetic-transcript';
import { countTurnSyscalls, type TurnSyscalls } from './lib/turn-syscalls';

const ROUNDS = pick(300, 8);
const WARMUP = pick(20, 2);
/** Turns in a long conversation (four entries each): 20 000 entries. */
const LONG_TURNS = pick(5_000, 500);
const SHORT_TURNS = 25;
/** Sessions per history variant: each turn goes to the next one. */
const HISTORY_SESSIONS = 2;
const FEW_SESSIONS = 100;
const MANY_SESSIONS = pick(1_000, 300);
/**
 * Sessions that are both many and long: their whole transcripts together more than the
 * orchestrator's transcript cache holds (16 MiB of heap); it holds their live parts.
 */
const MISSING_SESSIONS = pick(100, 20);
const MISSING_TURNS = pick(500, 100);
/** Turns counted under `strace` per sessions variant. */
const SYSCALL_TURNS = pick(300, 20);

const mock = await createMockProvider({ defaultReply: () => 'ok' });
const transport = createTransport({
  api: 'anthropic-messages',
  baseUrl: mock.anthropicBaseUrl,
  apiKey: 'bench',
  model: 'bench-model',
  maxTokens: 64,
});
const root = await mkdtemp(join(tmpdir(), 'keel-bench-turn-scale-'));

async function orchestratorIn(name: string): Promise<{ dir: string; orchestrator: Orchestrator }> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  return { dir, orchestrator: orchestratorOver(dir) };
}

/** An orchestrator over its own file store of `dir` (several of them: several writers). */
function orchestratorOver(dir: string): Orchestrator {
  const storage = createTranscriptStore({ sessionsDir: dir, fsync: true });
  return createOrchestrator({
    storage,
    fences: (sessionId) => createSessionFence({ storage, sessionId }),
    providers: [{ id: 'anthropic', profiles: [{ id: 'main' }] }],
    models: { primary: 'anthropic/bench-model' },
    router: { connect: () => transport },
  });
}

/** Seeds `count` sessions of `turns` turns each (compacted to the last 20 turns). */
async function seed(dir: string, prefix: string, count: number, turns: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
  let entries = 0;
  for (const sessionId of ids)
    entries = await writeSyntheticTranscript({ sessionsDir: dir, sessionId, turns, keepLast: 20 });
  console.log(`seeded ${count} × ${prefix} (${entries} entries each)`);
  return ids;
}

/** A variant that sends each turn to the next of its sessions, round robin. */
function roundRobin(name: string, orchestrator: Orchestrator, sessions: string[]): Variant {
  let next = 0;
  return {
    name,
    async run() {
      const sessionId = sessions[next % sessions.length] as string;
      next += 1;
      const outcome = await orchestrator.runTurn({ sessionId, input: 'one more' });
      if (outcome.kind !== 'reply') throw new Error(`${name}: the turn ended ${outcome.kind}`);
    },
  };
}

/**
 * A variant whose turns go round robin over `sessions` and, each time round, to the other of two
 * orchestrators over the same folder (two gateways): every turn finds its cached transcript one
 * turn behind, the other writer's.
 */
function twoWriters(
  name: string,
  writers: [Orchestrator, Orchestrator],
  sessions: string[],
): Variant {
  let next = 0;
  return {
    name,
    async run() {
      const sessionId = sessions[next % sessions.length] as string;
      const writer = writers[Math.floor(next / sessions.length) % 2] as Orchestrator;
      next += 1;
      const outcome = await writer.runTurn({ sessionId, input: 'one more' });
      if (outcome.kind !== 'reply') throw new Error(`${name}: the turn ended ${outcome.kind}`);
    },
  };
}

const short = await orchestratorIn('short');
const long = await orchestratorIn('long');
const few = await orchestratorIn('few');
const many = await orchestratorIn('many');
const missing = await orchestratorIn('missing');
const sharedShort = await orchestratorIn('shared-short');
const sharedLong = await orchestratorIn('shared-long');
const otherWriters = [orchestratorOver(sharedShort.dir), orchestratorOver(sharedLong.dir)];
const variants = [
  roundRobin(
    'short',
    short.orchestrator,
    await seed(short.dir, 'short', HISTORY_SESSIONS, SHORT_TURNS),
  ),
  roundRobin('long', long.orchestrator, await seed(long.dir, 'long', HISTORY_SESSIONS, LONG_TURNS)),
  roundRobin('few', few.orchestrator, await seed(few.dir, 'few', FEW_SESSIONS, 10)),
  roundRobin('many', many.orchestrator, await seed(many.dir, 'many', MANY_SESSIONS, 10)),
  roundRobin(
    'missing',
    missing.orchestrator,
    await seed(missing.dir, 'missing', MISSING_SESSIONS, MISSING_TURNS),
  ),
  twoWriters(
    'shared-short',
    [sharedShort.orchestrator, otherWriters[0] as Orchestrator],
    await seed(sharedShort.dir, 'shared-short', HISTORY_SESSIONS, SHORT_TURNS),
  ),
  twoWriters(
    'shared-long',
    [sharedLong.orchestrator, otherWriters[1] as Orchestrator],
    await seed(sharedLong.dir, 'shared-long', HISTORY_SESSIONS, LONG_TURNS),
  ),
];
const missingFileBytes = (await stat(join(missing.dir, 'missing-0.jsonl'))).size;
// Every session's first turn reads its transcript from disk; the rows measure the turns after
// that (steady state), so each session is visited once before the measured rounds.
// Those first turns' CPU is kept apart: what a turn that reads its whole transcript costs.
const firstCpu = new Map<string, number[]>();
for (const variant of variants.slice(2)) {
  const sessions =
    { few: FEW_SESSIONS, many: MANY_SESSIONS, missing: MISSING_SESSIONS }[variant.name] ??
    // Two writers: each reads each session whole once.
    2 * HISTORY_SESSIONS;
  const used: number[] = [];
  firstCpu.set(variant.name, used);
  for (let index = 0; index < sessions; index += 1) {
    const before = process.cpuUsage();
    await variant.run(index);
    const after = process.cpuUsage(before);
    used.push((after.user + after.system) / 1000);
  }
}
const cpu = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
const measured = variants.map((variant) => ({
  name: variant.name,
  async run(round: number) {
    const before = process.cpuUsage();
    await variant.run(round);
    const used = process.cpuUsage(before);
    if (round >= WARMUP) cpu.get(variant.name)?.push((used.user + used.system) / 1000);
  },
}));
const started = performance.now();
const times = await interleave(measured, { rounds: ROUNDS, warmup: WARMUP });
const seconds = ((performance.now() - started) / 1000).toFixed(0);
await Promise.all(
  [short, long, few, many, missing, sharedShort, sharedLong]
    .map(({ orchestrator }) => orchestrator)
    .concat(otherWriters)
    .map((orchestrator) => orchestrator.shutdown()),
);
await mock.close();
await rm(root, { recursive: true, force: true });

// The file-system calls of a turn at each session count, in a child process under `strace`: a
// cache or a kept descriptor that holds fewer sessions than are active shows up here as calls
// that only the larger variant makes (a store that kept 256 session locks made 40 calls a turn at
// 1 000 sessions, 36 at 100: a lock file created and removed per turn).
const syscallsAt = (sessions: number) =>
  countTurnSyscalls(SYSCALL_TURNS, { env: { SESSIONS: String(sessions), SEED: '1' } });
const fewSyscalls = await syscallsAt(FEW_SESSIONS);
const manySyscalls = await syscallsAt(MANY_SESSIONS);

const p50 = (name: string) => summarize(times.get(name) ?? []).p50;
const cpuP50 = (name: string) => summarize(cpu.get(name) ?? []).p50;
const row = (label: string, name: string, base: string) => {
  const time = summarize(times.get(name) ?? []);
  return [
    label,
    ms(time.p50),
    ms(time.p99),
    `${(time.p50 / p50(base)).toFixed(2)}×`,
    ms(cpuP50(name)),
    `${(cpuP50(name) / cpuP50(base)).toFixed(2)}×`,
  ];
};
const historyRatio = p50('long') / p50('short');
const historyCpuRatio = cpuP50('long') / cpuP50('short');
const sharedRatio = p50('shared-long') / p50('shared-short');
const sharedCpuRatio = cpuP50('shared-long') / cpuP50('shared-short');
const sessionsRatio = p50('many') / p50('few');
const sessionsCpuRatio = cpuP50('many') / cpuP50('few');
const missingRatio = p50('missing') / p50('few');
// How many of the "many and long" sessions the cache holds (its estimate: 1.25× the JSON).
const missingFit = Math.floor((16 * 1024 * 1024) / (missingFileBytes * 1.25));
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);
const missingCpuRatio = cpuP50('missing') / cpuP50('few');
const firstCpuP50 = (name: string) => summarize(firstCpu.get(name) ?? []).p50;
const syscallNames = [
  ...new Set([...(fewSyscalls?.byCall ?? []), ...(manySyscalls?.byCall ?? [])].map(([n]) => n)),
];
const callsOf = (counted: TurnSyscalls | undefined, name: string) =>
  (counted?.byCall.find(([call]) => call === name)?.[1] ?? 0).toFixed(1);

await publish({
  order: 20.1,
  title: 'Issue 20: a turn as history and sessions grow',
  method: `Turns through the orchestrator (\`runTurn\`) over the real file store (fsync on) and the \`@keel/transport\` Anthropic transport, against the in-process mock provider (zero delay, reply "ok"). Seven variants, each its own orchestrator and sessions folder, interleaved in rotating order for ${ROUNDS} rounds after ${WARMUP} warm-up rounds (${seconds} s): a turn to the next of ${HISTORY_SESSIONS} sessions holding ${SHORT_TURNS * 4} entries ("short") or ${LONG_TURNS * 4} entries ("long"), and a turn to the next of ${FEW_SESSIONS} or ${MANY_SESSIONS} sessions of 40 entries, and a turn to the next of ${MISSING_SESSIONS} sessions of ${MISSING_TURNS * 4} entries ("many and long": their whole transcripts more than the orchestrator's transcript cache holds, 16 MiB of heap; it keeps each one's live part, from what its last compaction kept), and "two writers": turns to ${HISTORY_SESSIONS} sessions of ${SHORT_TURNS * 4} or ${LONG_TURNS * 4} entries that alternate, each time round, between two orchestrators over the same folder (two gateways, each with its own file store), so that every turn finds its cached transcript one turn behind. Every transcript ends with a compaction that keeps its last 20 turns, so every variant sends the model the same small context: only the transcript's length, or the number of sessions, differs. The sessions variants visit every session once before the measured rounds (steady state, not first reads). CPU is the process's user + system time around each turn (the mock provider's share included, equal for all).`,
  baseline: `"short" for the history rows, "two writers" at ${SHORT_TURNS * 4} entries for the two writers' row, ${FEW_SESSIONS} sessions for the sessions rows; same run.`,
  tables: [
    {
      table: {
        columns: ['variant', 'p50 ms', 'p99 ms', 'p50 ratio', 'CPU p50 ms', 'CPU ratio'],
        rows: [
          row(`${SHORT_TURNS * 4} entries`, 'short', 'short'),
          row(`${LONG_TURNS * 4} entries`, 'long', 'short'),
          row(`${FEW_SESSIONS} sessions`, 'few', 'few'),
          row(`${MANY_SESSIONS} sessions`, 'many', 'few'),
          row(`${MISSING_SESSIONS} sessions of ${MISSING_TURNS * 4} entries`, 'missing', 'few'),
          row(`two writers, ${SHORT_TURNS * 4} entries`, 'shared-short', 'shared-short'),
          row(`two writers, ${LONG_TURNS * 4} entries`, 'shared-long', 'shared-short'),
        ],
      },
    },
    ...(fewSyscalls === undefined || manySyscalls === undefined
      ? []
      : [
          {
            caption: `File-system calls per turn by session count (a child process under \`strace -f -y\`: the same seeded sessions, each visited once, then ${SYSCALL_TURNS} one-message turns round robin, a model port that answers at once; every call that names a file of the sessions directory):`,
            table: {
              columns: ['call', `${FEW_SESSIONS} sessions`, `${MANY_SESSIONS} sessions`],
              rows: [
                ...syscallNames.map((name) => [
                  name,
                  callsOf(fewSyscalls, name),
                  callsOf(manySyscalls, name),
                ]),
                ['total', fewSyscalls.perTurn.toFixed(1), manySyscalls.perTurn.toFixed(1)],
              ],
            },
          },
        ]),
  ],
  targets: [
    {
      name: `flat in history: a turn at ${LONG_TURNS * 4} entries vs ${SHORT_TURNS * 4}`,
      goal: '≤ 1.2×',
      measured: `${historyRatio.toFixed(2)}×`,
      met: historyRatio <= 1.2,
      why: `the CPU per turn is ${historyCpuRatio.toFixed(2)}× (next row): what is left is the wait for the disk (each turn's two fsyncs, tens of ms on this machine under load), which varies between runs, and GC over the larger live heap`,
    },
    {
      name: `flat in history: CPU per turn at ${LONG_TURNS * 4} entries vs ${SHORT_TURNS * 4}`,
      goal: '≤ 1.2×',
      measured: `${historyCpuRatio.toFixed(2)}×`,
      met: historyCpuRatio <= 1.2,
    },
    {
      name: `flat in history with two writers: CPU per turn at ${LONG_TURNS * 4} entries vs ${SHORT_TURNS * 4}, each turn's cached transcript one turn behind (the other writer's)`,
      goal: '≤ 1.2×',
      measured: `${sharedCpuRatio.toFixed(2)}×`,
      met: sharedCpuRatio <= 1.2,
    },
    {
      name: `flat in sessions: p50 with ${MANY_SESSIONS} active sessions vs ${FEW_SESSIONS}`,
      goal: '≤ 1.2×',
      measured: `${sessionsRatio.toFixed(2)}×`,
      met: sessionsRatio <= 1.2,
      why: `the CPU per turn is ${sessionsCpuRatio.toFixed(2)}× and the file-system calls per turn ${manySyscalls?.perTurn.toFixed(1) ?? '?'} vs ${fewSyscalls?.perTurn.toFixed(1) ?? '?'} (table above): what is left is the wait for the disk (each turn's two fsyncs), which varies between runs`,
    },
    {
      name: `flat in sessions: CPU per turn with ${MANY_SESSIONS} active sessions vs ${FEW_SESSIONS}`,
      goal: '≤ 1.2×',
      measured: `${sessionsCpuRatio.toFixed(2)}×`,
      met: sessionsCpuRatio <= 1.2,
    },
    {
      name: `many and long at once: CPU per turn with ${MISSING_SESSIONS} sessions of ${MISSING_TURNS * 4} entries vs ${FEW_SESSIONS} of 40 (whole transcripts more than the transcript cache holds)`,
      goal: '≤ 1.2×',
      measured: `${missingCpuRatio.toFixed(2)}×`,
      met: missingCpuRatio <= 1.2,
    },
  ],
  notes: [
    `Two writers (p50 ${sharedRatio.toFixed(2)}×): each turn reads only the other writer's appended entries (\`readSince\`, since 2026-12-04) after checking that the bytes its cached state covered are unchanged. Before, each such turn read and parsed its whole transcript: 12.71× the CPU (101 against 7.91 ms) and 2.76× the p50 in the same bench run with \`readSince\` left unused. The lease passes from one store to the other as soon as it is let go: the waiting store watches the lock file (since 2026-12-04; before, it polled every 25–50 ms and both two-writer variants' p50 was 41–44 ms, against 3.6–3.7 ms after).`,
    `Many and long at once (p50 ${missingRatio.toFixed(2)}×): their whole transcripts would fill the transcript cache ${(MISSING_SESSIONS / Math.max(missingFit, 1)).toFixed(1)} times over (16 MiB of heap: about ${missingFit} of them, ${mib(missingFileBytes)} MiB of JSON each). Since 2026-12-04 a transcript put back in the cache keeps only its live part — the entries from what its last compaction kept (and the last assistant message and turn entry before them) — and the facts of the rest (the chosen model, the messages no turn answered, and a 31-bit hash of each client message id and answered message, weighed at 40 bytes each), so every turn here finds its session cached (before, every turn missed and read its whole transcript: 3.02×). A repeat of a message answered before the live part reads the transcript again; so does a compaction (its store's \`read\` gives the whole). What still grows with the length is a turn that reads the transcript (the first after a start, or after another writer changed it): CPU p50 of each session's first turn here ${ms(firstCpuP50('missing'))} ms at ${MISSING_TURNS * 4} entries against ${ms(firstCpuP50('few'))} ms at 40 (reading only the live part on a miss needs the facts kept apart from the entries, in storage: not built).`,
  ],
});
