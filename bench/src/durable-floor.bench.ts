/**
 * Issue 20's gateway rows against the floor of any durable gateway on this machine: the same
 * message (a 20-turn history and one new message, streamed Chat Completions upstream) sent
 * directly with the `openai` SDK, through a bare `node:http` proxy (a hop, nothing stored), through
 * the durable floor (`lib/durable-proxy-child.ts`: the message and the reply appended, one fsync,
 * the answer sent after it, nothing else), through that floor with the parts the project keeps
 * (`lib/fixed-parts-child.ts`: Fastify, the `openai` SDK through `@keel/transport`), those with the
 * session fence's file-system calls made straight (`lib/straight-fence-child.ts`), those with the
 * session fence (`lib/fenced-parts-child.ts`), those with the orchestrator's turn over the fence
 * (`lib/turn-core-child.ts`), and through the Keel gateway (durable): each rung adds one of Keel's
 * parts, so the step where a goal is lost is where its work is. Interleaved latency at 1 in flight,
 * throughput at 1 and at 32 in flight, each server process's CPU per message, and at 32 in flight
 * the CPU per message of the client, the provider and the server (its main thread and its other
 * threads): the cores they share bound the throughput. What the rows of section 1 ask of Keel —
 * ≤ 2 ms over the direct SDK, CPU ≤ Portkey's not-streamed proxy, ≥ 50 % of direct throughput at
 * 32 in flight — is read against what the floor costs, alone, with the parts the project keeps
 * and with each of Keel's packages.
 *
 * Run: `pnpm build && pnpm bench durable-floor`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { pick } from './lib/env';
import { interleave } from './lib/interleave';
import {
  oneMockGatewayConfig,
  PNPM_START_NODE_OPTIONS,
  postMessage,
  startKeelGateway,
} from './lib/keel-gateway';
import { closedLoop } from './lib/load';
import { startMockProcess } from './lib/mock-process';
import { ownCpuMs, processCpuMs } from './lib/process-cpu';
import { publish } from './lib/result';
import { startBareProxy } from './lib/start-bare-proxy';
import { type FloorRung, startDurableProxy, startFloorRung } from './lib/start-durable-proxy';
import { median, ms, ratio, spread, summarize } from './lib/stats';
import { allThree, type ThreeCpu, threeCpuMs, threeCpuPerMessage } from './lib/three-cpu';

const ROUNDS = pick(300, 12);
const WARMUP = pick(40, 3);
const HISTORY = pick(20, 2);
const SESSIONS = pick(32, 4);
const IN_FLIGHT = pick(32, 4);
const BLOCK_AT_1 = pick(60, 5);
const BLOCK_MANY = pick(320, 16);
const BLOCKS = pick(5, 1);
const CPU_BLOCK = pick(200, 10);
const MODEL = 'bench-model';
const REPLY = 'ok';
type Message = { role: 'user' | 'assistant'; content: string };

const mock = await startMockProcess({ reply: REPLY });
// Keel as `pnpm start` launches it, as in section 1.
const gateway = await startKeelGateway(
  oneMockGatewayConfig(mock.openaiBaseUrl, MODEL),
  undefined,
  PNPM_START_NODE_OPTIONS,
);
const bare = await startBareProxy(mock.url, 'pipe');
const floorDir = await mkdtemp(join(tmpdir(), 'keel-bench-floor-'));
const floor = await startDurableProxy(mock.url, floorDir);
const rungDirs: string[] = [];
async function rung(name: FloorRung) {
  const dir = await mkdtemp(join(tmpdir(), `keel-bench-${name}-`));
  rungDirs.push(dir);
  return startFloorRung(name, mock.openaiBaseUrl, dir, MODEL);
}
const fixed = await rung('fixed-parts');
const straight = await rung('straight-fence');
const fenced = await rung('fenced-parts');
const core = await rung('turn-core');

type Send = (session: number, text: string) => Promise<void>;
const client = (baseURL: string) => new OpenAI({ apiKey: 'sk-bench', baseURL, maxRetries: 0 });
const direct = client(mock.openaiBaseUrl);
const viaBare = client(`${bare.url}/v1`);
const viaFloor = client(`${floor.url}/v1`);

/**
 * A client that keeps each session's conversation and sends it with every message, as the gateway
 * does upstream from its transcript: every variant sends the same messages to the same sessions,
 * so their histories stay the same length.
 */
function conversationsVia(via: OpenAI): Send {
  const histories = new Map<number, Message[]>();
  return async (session, text) => {
    const history = histories.get(session) ?? [];
    await streamed(via, session, [...history, { role: 'user', content: text }]);
    history.push({ role: 'user', content: text }, { role: 'assistant', content: REPLY });
    histories.set(session, history);
  };
}

async function streamed(via: OpenAI, session: number, messages: Message[]): Promise<void> {
  const stream = await via.chat.completions.create(
    {
      model: MODEL,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 64,
    },
    { headers: { 'x-session': `floor-${session}` } },
  );
  let reply = '';
  for await (const chunk of stream) reply += chunk.choices[0]?.delta.content ?? '';
  if (reply !== REPLY) throw new Error(`unexpected reply ${JSON.stringify(reply)}`);
}

async function keel(session: number, text: string): Promise<void> {
  const answer = await gateway.send(`floor-${session}`, text);
  if (answer.outcome !== 'reply' || answer.text !== REPLY)
    throw new Error(`unexpected outcome ${JSON.stringify(answer)}`);
}

/** A floor rung's native route at `url`, posted to as `gateway.send` posts to Keel's. */
function nativeRoute(url: string): Send {
  return async (session, text) => {
    const answer = await postMessage(url, `floor-${session}`, text);
    if (answer.outcome !== 'reply' || answer.text !== REPLY)
      throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
  };
}

const VARIANTS: Array<{ name: string; send: Send; pid?: number }> = [
  { name: 'direct SDK', send: conversationsVia(direct) },
  {
    name: 'bare `node:http` proxy (stores nothing)',
    send: conversationsVia(viaBare),
    pid: bare.service.pid,
  },
  {
    name: 'durable floor (two appends, one fsync, nothing else)',
    send: conversationsVia(viaFloor),
    pid: floor.service.pid,
  },
  {
    name: 'durable floor with the fixed parts (Fastify, the `openai` SDK through `@keel/transport`)',
    send: nativeRoute(fixed.url),
    pid: fixed.service.pid,
  },
  {
    name: 'the fixed parts and the fence’s file-system calls made straight',
    send: nativeRoute(straight.url),
    pid: straight.service.pid,
  },
  {
    name: 'the fixed parts and the session fence',
    send: nativeRoute(fenced.url),
    pid: fenced.service.pid,
  },
  {
    name: 'the fixed parts and the turn’s core (the orchestrator over the fence)',
    send: nativeRoute(core.url),
    pid: core.service.pid,
  },
  { name: 'Keel gateway (durable)', send: keel, pid: gateway.service.pid },
];
/** Every variant sends the same message to the same session. */
async function everyVariant(session: number, text: string, order: number): Promise<void> {
  for (let index = 0; index < VARIANTS.length; index += 1)
    await VARIANTS[(index + order) % VARIANTS.length]?.send(session, text);
}
/**
 * Gives sessions `base`…`base + SESSIONS - 1` their `HISTORY` turns through every variant (not
 * measured): each measured phase starts on sessions of its own at that length, so histories stay
 * near it (a phase adds at most BLOCK_MANY / SESSIONS turns to each).
 */
async function prefill(base: number): Promise<void> {
  for (let turn = 0; turn < HISTORY; turn += 1)
    await closedLoop({ total: SESSIONS, concurrency: 8 }, (session) =>
      everyVariant(base + session, `history ${turn}`, turn),
    );
}
let nextBase = 0;
async function freshSessions(): Promise<number> {
  const base = nextBase;
  nextBase += SESSIONS;
  await prefill(base);
  return base;
}
await freshSessions();

// Latency: each round one message per variant, in rotating order, in the round's session.
const times = await interleave(
  VARIANTS.map((variant) => ({
    name: variant.name,
    run: (round: number) => variant.send(round % SESSIONS, `message ${round}`),
  })),
  { rounds: ROUNDS, warmup: WARMUP },
);

// Throughput and CPU: blocks per variant, in rotating order, every variant sending the same
// messages to the same sessions (the direct SDK too in the CPU block, unmeasured).
const at1 = new Map<string, number[]>(VARIANTS.map((variant) => [variant.name, []]));
const atMany = new Map<string, number[]>(VARIANTS.map((variant) => [variant.name, []]));
const cpu = new Map<string, number[]>(VARIANTS.map((variant) => [variant.name, []]));
const cpuMany = new Map<string, ThreeCpu[]>(VARIANTS.map((variant) => [variant.name, []]));
let serial = 0;
for (let round = 0; round < BLOCKS; round += 1) {
  const bases = {
    at1: await freshSessions(),
    many: await freshSessions(),
    cpu: await freshSessions(),
  };
  for (let index = 0; index < VARIANTS.length; index += 1) {
    const variant = VARIANTS[(index + round) % VARIANTS.length] as (typeof VARIANTS)[0];
    serial += 1;
    const block = serial;
    const one = await closedLoop({ total: BLOCK_AT_1, concurrency: 1 }, (message) =>
      variant.send(bases.at1 + (message % SESSIONS), `block ${block} message ${message}`),
    );
    at1.get(variant.name)?.push(one.perSecond);
    const startedMany = await threeCpuMs(mock.service.pid, variant.pid);
    const many = await closedLoop(
      { total: BLOCK_MANY, concurrency: IN_FLIGHT },
      (message, worker) =>
        variant.send(bases.many + (worker % SESSIONS), `block ${block} message ${message}`),
    );
    atMany.get(variant.name)?.push(many.perSecond);
    cpuMany
      .get(variant.name)
      ?.push(
        threeCpuPerMessage(
          startedMany,
          await threeCpuMs(mock.service.pid, variant.pid),
          BLOCK_MANY,
        ),
      );
    // The direct variant's CPU is this process's: the SDK's own work for a message, client side.
    const cpuNow = () => (variant.pid === undefined ? ownCpuMs() : processCpuMs(variant.pid));
    const before = await cpuNow();
    for (let message = 0; message < CPU_BLOCK; message += 1)
      await variant.send(bases.cpu + (message % SESSIONS), `cpu ${block} message ${message}`);
    const used = (await cpuNow()) - before;
    cpu.get(variant.name)?.push(used / CPU_BLOCK);
  }
}

await Promise.allSettled([
  gateway.close(),
  bare.service.stop(),
  floor.service.stop(),
  fixed.service.stop(),
  straight.service.stop(),
  fenced.service.stop(),
  core.service.stop(),
  mock.close(),
]);
for (const dir of [floorDir, ...rungDirs]) await rm(dir, { recursive: true, force: true });

const summaries = new Map([...times].map(([name, values]) => [name, summarize(values)] as const));
const base = summaries.get('direct SDK') ?? summarize([]);
const overhead = (name: string) => (summaries.get(name)?.p50 ?? Number.NaN) - base.p50;
const baseAt1 = median(at1.get('direct SDK') ?? []);
const baseMany = median(atMany.get('direct SDK') ?? []);
const [, bareName, floorName, fixedName, straightName, fencedName, coreName, keelName] =
  VARIANTS.map((variant) => variant.name) as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
/** The floor and the rungs that stand in for the gateway, the gateway last. */
const LADDER = [floorName, fixedName, straightName, fencedName, coreName, keelName];
const shareMany = (name: string) => median(atMany.get(name) ?? []) / baseMany;
/** The median over the blocks at `IN_FLIGHT` of one process's CPU per message. */
const manyCpuOf = (name: string, part: (cpu: ThreeCpu) => number | undefined) =>
  median((cpuMany.get(name) ?? []).map(part).filter((value) => value !== undefined));
const serverMain = (cpu: ThreeCpu) => cpu.server?.main;
const serverOther = (cpu: ThreeCpu) => cpu.server?.other;
const CORES = availableParallelism();
const cpuOf = (name: string) => median(cpu.get(name) ?? []);
/** What the variant `to` adds to `from`: p50 overhead, CPU one at a time, all three's CPU at `IN_FLIGHT`. */
const steps = (from: string, to: string) => {
  const added = (value: (name: string) => number) => {
    const difference = value(to) - value(from);
    return `${difference < 0 ? '−' : '+'}${ms(Math.abs(difference))}`;
  };
  return `${added(overhead)} / ${added(cpuOf)} / ${added((name) => manyCpuOf(name, allThree))} ms`;
};
await publish({
  order: 20.5,
  title: 'Issue 20: the floor of a durable gateway',
  method: `Eight variants, each the same conversation (a ${HISTORY}-turn history and one new message, streamed Chat Completions upstream) with the mock provider in its own process (zero delay, reply "${REPLY}"): sent directly with the \`openai\` SDK; through a bare \`node:http\` proxy with a keep-alive agent (forwards bytes, stores nothing); through the durable floor (\`bench/src/lib/durable-proxy-child.ts\`: parses the request, appends its last message as a JSON line to the session's file, forwards the request, reads the whole answer, appends it, fsyncs the file once, then answers — the least a server can do under DESIGN.md "Durable before acknowledged" for an answer sent whole, as Keel's JSON route does in a session no client follows; no lock, no fence, no transcript read, no turn); through the durable floor with the project's fixed parts (\`bench/src/lib/fixed-parts-child.ts\`: the same two appends and one fsync, served by Fastify on Keel's native route, the model called through \`@keel/transport\` and the \`openai\` SDK, the answer as JSON, each session's conversation kept in memory, its heap bounded as the gateway's); through the fixed parts with the session fence's file-system calls made straight (\`bench/src/lib/straight-fence-child.ts\`: per message the same calls as the next variant's — a fencing token written, the transcript's identity, size, first and last 4 KiB compared three times, two appends each after an \`lstat\`, one fsync — synchronous on kept descriptors, the bytes compared directly; no store, fence object, digest, validation or framing); through the fixed parts and the session fence (\`bench/src/lib/fenced-parts-child.ts\`: Keel's session fence over its file store, used as the orchestrator's turn uses it — a fence made per message, acquired, the turn's start and the message written, released for the model call and reacquired, the reply and the turn's end written with one fsync, ended after the answer; the conversation kept in memory, no turn); through the fixed parts and the turn's core (\`bench/src/lib/turn-core-child.ts\`: \`@keel/orchestrator\` with its defaults over the fence and the file store, \`runTurn\` per message as the gateway runs it — session queue, transcript view, model context, events, failover's bookkeeping — and none of the gateway's hooks, observers or log lines); and through the Keel gateway (\`POST /v1/sessions/:id/messages\`, file store, fsync on, log level warn). Every variant sends the same messages to the same sessions, so their histories stay the same; each measured phase starts on ${SESSIONS} sessions of its own that were given ${HISTORY} turns first (not measured). Latency: ${ROUNDS} rounds after ${WARMUP} warm-up rounds, one message per variant per round, the order rotating (at most ${Math.ceil((ROUNDS + WARMUP) / SESSIONS)} more turns per session by the end). Then ${BLOCKS} rounds of blocks per variant, in rotating order: ${BLOCK_AT_1} messages one at a time, ${BLOCK_MANY} with ${IN_FLIGHT} in flight (each in flight keeping to its own session), and ${CPU_BLOCK} one at a time for the server process's user + system CPU (\`/proc/<pid>/stat\`; the direct SDK sends that block too, unmeasured); medians of the blocks.`,
  baseline: 'the same request sent directly with the official `openai` SDK, in the same run.',
  tables: [
    {
      table: {
        columns: [
          'variant',
          'p50 ms',
          'p10–p90 ms',
          'p99 ms',
          'p50 overhead ms',
          'req/s at 1 in flight (ratio)',
          `req/s at ${IN_FLIGHT} in flight (ratio)`,
          'server CPU ms per message',
        ],
        rows: VARIANTS.map(({ name, pid }) => {
          const summary = summaries.get(name) ?? summarize([]);
          const one = median(at1.get(name) ?? []);
          const many = median(atMany.get(name) ?? []);
          return [
            name,
            ms(summary.p50),
            spread(summary),
            ms(summary.p99),
            name === 'direct SDK' ? '–' : `+${ms(overhead(name))}`,
            `${one.toFixed(0)} (${ratio(one, baseAt1)})`,
            `${many.toFixed(0)} (${ratio(many, baseMany)})`,
            pid === undefined ? `(${ms(cpuOf(name))} client side)` : ms(cpuOf(name)),
          ];
        }),
      },
    },
    {
      caption:
        'Section 1’s goals for Keel, and what the floor, its rungs and Keel reach in this run: a goal the floor misses is out of reach for any durable gateway on this machine; one the floor with the fixed parts misses is out of reach while the project keeps those parts; the rung after it makes the session fence’s file-system calls, written straight; the next two add Keel’s own packages as a library user wires them (the session fence, then the orchestrator’s turn over it), and the gateway adds its plumbing: the step where a goal is lost is where its work is.',
      table: {
        columns: [
          'section 1 goal',
          'durable floor',
          'with the fixed parts',
          'and the fence’s calls made straight',
          'and the session fence',
          'and the turn’s core',
          'Keel',
        ],
        rows: [
          [
            'p50 overhead over the direct SDK ≤ 2 ms',
            ...LADDER.map((name) => `${ms(overhead(name))} ms`),
          ],
          [
            `throughput at ${IN_FLIGHT} in flight ≥ 50 % of direct`,
            ...LADDER.map((name) => `${(shareMany(name) * 100).toFixed(0)} %`),
          ],
          [
            'server CPU per message ≤ Portkey’s not streamed (section 1)',
            ...LADDER.map((name) => `${ms(cpuOf(name))} ms`),
          ],
        ],
      },
    },
    {
      caption: `At ${IN_FLIGHT} in flight the ${CORES} cores are shared by the client (this process: the \`openai\` SDK, or \`fetch\` for the two native routes), the mock provider and the server; each one's CPU per message in the same blocks (medians), the server's split between its main thread (the event loop: JavaScript, the collector's pauses, synchronous file-system calls) and its other threads (V8's collector and compiler, libuv's thread pool: the fsync). With the cores busy, throughput can be at most the cores' time over the three's CPU per message ("bound").`,
      table: {
        columns: [
          'variant',
          'client ms',
          'provider ms',
          'server main thread ms',
          'server other threads ms',
          'all three ms',
          'bound req/s',
          `req/s at ${IN_FLIGHT} in flight`,
        ],
        rows: VARIANTS.map(({ name, pid }) => {
          const total = manyCpuOf(name, allThree);
          return [
            name,
            ms(manyCpuOf(name, (cpu) => cpu.client)),
            ms(manyCpuOf(name, (cpu) => cpu.provider)),
            pid === undefined ? '–' : ms(manyCpuOf(name, serverMain)),
            pid === undefined ? '–' : ms(manyCpuOf(name, serverOther)),
            ms(total),
            total > 0 ? ((CORES * 1000) / total).toFixed(0) : '–',
            median(atMany.get(name) ?? []).toFixed(0),
          ];
        }),
      },
    },
  ],
  // Not Keel's targets (those are section 1's rows): what the floor reaches against each of them.
  targets: [],
  notes: [
    `Server CPU per message: bare proxy ${ms(cpuOf(bareName))} ms, durable floor ${ms(cpuOf(floorName))} ms, with the fixed parts ${ms(cpuOf(fixedName))} ms (its heap bounded as the gateway bounds its own, launched as \`pnpm start\` launches the gateway; until 2026-12-04 it ran with V8's default heap settings), Keel ${ms(cpuOf(keelName))} ms (as \`pnpm start\` launches it, \`node ${PNPM_START_NODE_OPTIONS.join(' ')}\`, the gateway bounding its heap; section 1 has Keel with V8's own heap heuristics and with the \`--optimize-for-size\` fallback too); section 1's CPU row asks Keel for at most what Portkey's not-streamed proxy spends (measured there), a proxy that stores nothing. CPU per block (ms per message): Keel ${(cpu.get(keelName) ?? []).map(ms).join(', ')}; with the fixed parts ${(cpu.get(fixedName) ?? []).map(ms).join(', ')}; durable floor ${(cpu.get(floorName) ?? []).map(ms).join(', ')}. The floor's CPU above the bare proxy's is what storing the two lines durably costs before any fence, turn or validation. The direct SDK's figure is the bench process's own CPU for its block: what the \`openai\` SDK spends on a streamed message client side (building the request, reading the stream), about what the gateway's own upstream call through the SDK costs it (the project keeps the SDKs).`,
    `At ${IN_FLIGHT} in flight, half of direct's throughput asks that client, provider and server together spend at most about twice what the direct SDK and the provider spend per message (${ms(2 * manyCpuOf('direct SDK', allThree))} ms in this run): Keel's three spent ${ms(manyCpuOf(keelName, allThree))} ms, the server ${ms(manyCpuOf(keelName, serverMain))} ms on its main thread and ${ms(manyCpuOf(keelName, serverOther))} ms on its other threads; with the fixed parts ${ms(manyCpuOf(fixedName, allThree))} ms (server ${ms(manyCpuOf(fixedName, serverMain))} + ${ms(manyCpuOf(fixedName, serverOther))} ms). The other threads are mostly V8's collector: at ${IN_FLIGHT} in flight the turns in progress are alive through more scavenges than one at a time, and each scavenge copies them.`,
    `What each rung adds, in this run — p50 overhead / server CPU per message one at a time / the three processes' CPU per message at ${IN_FLIGHT} in flight: the fixed parts over the floor ${steps(floorName, fixedName)}; the fence's file-system calls made straight over the fixed parts ${steps(fixedName, straightName)}; the session fence over the fixed parts ${steps(fixedName, fencedName)} (over the same calls made straight ${steps(straightName, fencedName)}); the orchestrator's turn over the fence ${steps(fencedName, coreName)}; the gateway over the turn's core ${steps(coreName, keelName)}.`,
    'The floor with the fixed parts adds to the floor what the project chose and keeps: Fastify serving Keel’s native route (its JSON schema checked), the model called through `@keel/transport` with the official `openai` SDK (streamed, as the gateway calls it), the answer as JSON, the heap bounded as the gateway bounds its own (the same launch options and `boundHeap`); each session’s conversation kept in memory. The floor keeps only the durability rule; what Keel adds on top of both, per message: the session fence (its lease and the transcript checks before each write, so a second writer or another gateway is refused rather than written over), the transcript read and context building, the turn (failover, tool pairing, compaction, events, provider health), request validation, and the answer as JSON instead of the provider’s bytes.',
  ],
});
