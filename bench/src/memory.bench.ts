/**
 * Issue 20, "bounded memory": the gateway's resident memory while 100 000 messages go through it,
 * spread over 1 000 sessions, with every bound at its default (event log, transcript cache,
 * provider health, call records). Sampled from `/proc/<pid>/status` (VmRSS) as it runs.
 */
import { readFile } from 'node:fs/promises';
import { pick } from './lib/env';
import { mockGatewayConfig, startKeelGateway } from './lib/keel-gateway';
import { startMockProcess } from './lib/mock-process';
import { publish } from './lib/result';

/** `BENCH_MEMORY_MESSAGES` shortens a full run (100 000 messages take about half an hour here). */
const MESSAGES = pick(Number(process.env['BENCH_MEMORY_MESSAGES'] ?? 100_000), 600);
const SESSIONS = pick(1_000, 30);
const IN_FLIGHT = 16;
const SAMPLES = 20;

const mock = await startMockProcess({ reply: 'ok' });
const gateway = await startKeelGateway(
  mockGatewayConfig({
    baseUrl: mock.openaiBaseUrl,
    sessionsDir: 'sessions',
    providers: [{ id: 'mock', keys: ['sk-bench'] }],
    primary: 'mock/bench-model',
  }),
);

async function rssMiB(): Promise<number> {
  const status = await readFile(`/proc/${gateway.service.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

const samples: Array<{ messages: number; rssMiB: number }> = [
  { messages: 0, rssMiB: await rssMiB() },
];
const every = Math.ceil(MESSAGES / SAMPLES);
let sent = 0;
let answered = 0;
const started = performance.now();
async function worker(): Promise<void> {
  while (sent < MESSAGES) {
    const index = sent;
    sent += 1;
    const answer = await gateway.send(`s-${index % SESSIONS}`, `message ${index}`);
    if (answer.outcome !== 'reply') throw new Error(`message ${index}: ${answer.outcome}`);
    answered += 1;
    if (answered % every === 0) samples.push({ messages: answered, rssMiB: await rssMiB() });
  }
}
await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
const seconds = ((performance.now() - started) / 1000).toFixed(0);
const peak = (await gateway.service.peakRssMiB()) ?? Number.NaN;
await gateway.close();
await mock.close();

const final = samples.at(-1)?.rssMiB ?? Number.NaN;
const half = samples.filter((sample) => sample.messages >= MESSAGES / 2);
const halfStart = half[0]?.rssMiB ?? Number.NaN;
const growth = final - halfStart;

await publish({
  order: 20.3,
  title: 'Issue 20: bounded memory',
  method: `${MESSAGES} messages through the built gateway's \`POST /v1/sessions/:id/messages\` (file store, fsync on, log level warn, every bound at its default), ${IN_FLIGHT} in flight, to ${SESSIONS} sessions in turn (each ends with about ${Math.round((MESSAGES / SESSIONS) * 4)} transcript entries), against the mock provider in its own process (reply "ok"); the gateway's resident set size (\`VmRSS\`) sampled every ${every} answers (${seconds} s).`,
  baseline: 'the gateway just started, before the first message.',
  tables: [
    {
      table: {
        columns: ['messages answered', 'RSS MiB'],
        rows: samples.map((sample) => [String(sample.messages), sample.rssMiB.toFixed(0)]),
      },
    },
  ],
  targets: [
    {
      name: `RSS after ${MESSAGES} messages over ${SESSIONS} sessions`,
      goal: '≤ 200 MiB',
      measured: `${final.toFixed(0)} MiB (peak ${peak.toFixed(0)} MiB)`,
      met: final <= 200,
      why: 'the JavaScript heap stays small; the resident set grows in the native malloc arena (see the note)',
    },
    {
      name: 'flat over the last half of the run',
      goal: 'grows ≤ 10 % from the half-way sample',
      measured: `${growth >= 0 ? '+' : ''}${growth.toFixed(0)} MiB (${((growth / halfStart) * 100).toFixed(0)} %)`,
      met: growth <= halfStart * 0.1,
      why: 'the JavaScript heap stays small; the resident set grows in the native malloc arena (see the note)',
    },
  ],
  notes: [
    "Where the memory is (a heap snapshot of the gateway at 7 500 messages, 2026-12-01, taken with `--heapsnapshot-signal`; and `/proc/<pid>/smaps`): the JavaScript heap held 69 MB (arrays 15 MB, strings 12 MB, compiled code 11 MB, plain objects 9 MB) while the resident set was 328 MiB, 272 MiB of it the main `malloc` arena (`[heap]`). So the growth is not in JavaScript objects that a bound could forget: it is native memory, most likely the churn of `Buffer` backing stores from the file store's reads and writes (`external` memory swings between 10 and 60 MB between collections) fragmenting the arena, which never shrinks. The same loop in process without HTTP (orchestrator and file store only) grew alike (80 → 286 MiB over 18 000 turns with a JavaScript heap of 50–130 MB). What would meet it: fewer and reused buffers per turn in the file store (the same work as the system-call target), then a re-measure; the event log and transcript cache bounds (16 MiB each by default) hold.",
  ],
});
