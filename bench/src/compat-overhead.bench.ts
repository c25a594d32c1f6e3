/**
 * Issue 19: the overhead of a stateless proxy hop. The same Chat Completions request (a short
 * prompt, a sixty-word answer from the mock provider in its own process) sent with the `openai`
 * SDK directly to the mock, through Keel's `POST /v1/chat/completions` and through Portkey's
 * open-source gateway, interleaved; streamed (time to the first chunk and to the last byte) and
 * not streamed (Portkey 1.15.2 sleeps 25 ms before the first chunk of every streamed answer).
 * Three bare proxies (`lib/bare-proxy-child.ts`, nothing but forwarding) run beside them: a raw TCP
 * pass-through (the floor of any proxy hop on this machine, against which the ≤ 1 ms target is
 * read), a `node:http` pipe (the floor of an HTTP proxy) and a `fetch` proxy (undici).
 */
import OpenAI from 'openai';
import { pick, SMOKE } from './lib/env';
import { interleave, type Variant } from './lib/interleave';
import { oneMockGatewayConfig, startKeelGateway } from './lib/keel-gateway';
import { startMockProcess } from './lib/mock-process';
import { portkeyHeaders, startPortkey } from './lib/portkey';
import { publish } from './lib/result';
import { startBareProxy } from './lib/start-bare-proxy';
import { ms, type Summary, summarize } from './lib/stats';

const ROUNDS = pick(600, 10);
const WARMUP = pick(50, 3);
const MODEL = 'bench-model';
/** Sixty words, streamed by the mock in its usual small chunks. */
const REPLY =
  'A gateway is judged on the bad days. When a provider slows, cuts a stream, or refuses a ' +
  'request, the caller should still receive one complete answer, quickly, from a model that ' +
  'can give it, with an honest record of every attempt. Nobody notices the good days; trust ' +
  'comes from the failures that were handled well and told truthfully, without retrying blindly.';
const MESSAGES = [{ role: 'user' as const, content: 'Why does a gateway earn trust?' }];

const mock = await startMockProcess({ reply: REPLY });
const gateway = await startKeelGateway(oneMockGatewayConfig(mock.openaiBaseUrl, MODEL));
const portkey = await startPortkey();
const bareNet = await startBareProxy(mock.url, 'net');
const barePipe = await startBareProxy(mock.url, 'pipe');
const bareFetch = await startBareProxy(mock.url, 'fetch');

/** The three ways to the same model, each with the model name it takes there. */
const paths = {
  direct: {
    label: 'direct to the mock',
    model: MODEL,
    client: new OpenAI({ apiKey: 'sk-bench', baseURL: mock.openaiBaseUrl, maxRetries: 0 }),
  },
  keel: {
    label: 'Keel `/v1/chat/completions`',
    // The config's `models` are the `default` route: the gateway asks `mock/bench-model`.
    model: 'default',
    client: new OpenAI({ apiKey: 'sk-bench', baseURL: `${gateway.url}/v1`, maxRetries: 0 }),
  },
  portkey: {
    label: `Portkey ${portkey.version}`,
    model: MODEL,
    client: new OpenAI({
      apiKey: 'sk-bench',
      baseURL: `${portkey.url}/v1`,
      maxRetries: 0,
      defaultHeaders: portkeyHeaders(mock.openaiBaseUrl),
    }),
  },
  net: {
    label: 'bare TCP pass-through (the floor of any proxy)',
    model: MODEL,
    client: new OpenAI({ apiKey: 'sk-bench', baseURL: `${bareNet.url}/v1`, maxRetries: 0 }),
  },
  pipe: {
    label: 'bare `node:http` pipe proxy (the HTTP floor)',
    model: MODEL,
    client: new OpenAI({ apiKey: 'sk-bench', baseURL: `${barePipe.url}/v1`, maxRetries: 0 }),
  },
  fetch: {
    label: 'bare `fetch` proxy (the floor with undici)',
    model: MODEL,
    client: new OpenAI({ apiKey: 'sk-bench', baseURL: `${bareFetch.url}/v1`, maxRetries: 0 }),
  },
};
type PathName = keyof typeof paths;
const names = Object.keys(paths) as PathName[];

/** Time to the first chunk of each measured streamed request, by path (warm-up left out). */
const firstChunk = new Map<PathName, number[]>(names.map((name) => [name, []]));

async function streamed(name: PathName, round: number): Promise<void> {
  const { client, model } = paths[name];
  const started = performance.now();
  const stream = await client.chat.completions.create({
    model,
    messages: MESSAGES,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let first: number | undefined;
  for await (const chunk of stream) {
    first ??= performance.now() - started;
    text += chunk.choices[0]?.delta.content ?? '';
  }
  if (text !== REPLY) throw new Error(`${name}: unexpected reply ${JSON.stringify(text)}`);
  if (round >= WARMUP && first !== undefined) firstChunk.get(name)?.push(first);
}

async function whole(name: PathName): Promise<void> {
  const { client, model } = paths[name];
  const completion = await client.chat.completions.create({ model, messages: MESSAGES });
  const text = completion.choices[0]?.message.content;
  if (text !== REPLY) throw new Error(`${name}: unexpected reply ${JSON.stringify(text)}`);
}

const variants: Variant[] = names.flatMap((name) => [
  { name: `${name} streamed`, run: (round: number) => streamed(name, round) },
  { name: `${name} whole`, run: () => whole(name) },
]);
const started = performance.now();
const times = await interleave(variants, { rounds: ROUNDS, warmup: WARMUP });
const seconds = ((performance.now() - started) / 1000).toFixed(0);
await Promise.all([
  gateway.close(),
  portkey.service.stop(),
  bareNet.service.stop(),
  barePipe.service.stop(),
  bareFetch.service.stop(),
  mock.close(),
]);

const last = (name: PathName, mode: 'streamed' | 'whole') =>
  summarize(times.get(`${name} ${mode}`) ?? []);
const first = (name: PathName) => summarize(firstChunk.get(name) ?? []);
const over = (value: Summary, base: Summary, key: 'p50' | 'p99') =>
  `${value[key] >= base[key] ? '+' : ''}${ms(value[key] - base[key])}`;

const streamedRows = names.map((name) => {
  const total = last(name, 'streamed');
  const ttfc = first(name);
  const base = last('direct', 'streamed');
  const baseFirst = first('direct');
  return [
    paths[name].label,
    ms(ttfc.p50),
    ms(ttfc.p99),
    name === 'direct' ? '–' : over(ttfc, baseFirst, 'p50'),
    ms(total.p50),
    ms(total.p99),
    name === 'direct' ? '–' : over(total, base, 'p50'),
    name === 'direct' ? '–' : over(total, base, 'p99'),
  ];
});
const wholeRows = names.map((name) => {
  const total = last(name, 'whole');
  const base = last('direct', 'whole');
  return [
    paths[name].label,
    ms(total.p50),
    ms(total.p99),
    name === 'direct' ? '–' : over(total, base, 'p50'),
    name === 'direct' ? '–' : over(total, base, 'p99'),
  ];
});

const overhead = (name: PathName, mode: 'streamed' | 'whole') =>
  last(name, mode).p50 - last('direct', mode).p50;
const keelStreamed = overhead('keel', 'streamed');
const portkeyStreamed = overhead('portkey', 'streamed');
const keelWhole = overhead('keel', 'whole');
const portkeyWhole = overhead('portkey', 'whole');
const keelFirst = first('keel').p50 - first('direct').p50;
const netStreamed = overhead('net', 'streamed');
const netWhole = overhead('net', 'whole');
const pipeStreamed = overhead('pipe', 'streamed');
const fetchStreamed = overhead('fetch', 'streamed');
const pipeWhole = overhead('pipe', 'whole');
const fetchWhole = overhead('fetch', 'whole');

/** Why the ≤ 1 ms rows read as they do: the floors measured in the same rounds. */
function floorWhy(mode: 'whole' | 'streamed'): string {
  const [net, pipe, fetchProxy, keel] =
    mode === 'whole'
      ? [netWhole, pipeWhole, fetchWhole, keelWhole]
      : [netStreamed, pipeStreamed, fetchStreamed, keelStreamed];
  const floor =
    net > 1
      ? `no proxy hop can meet 1 ms on this machine: in the same rounds a raw TCP pass-through, which parses nothing and only copies bytes between two sockets, added ${ms(net)} ms — the cost of one more process, two more loopback connections and the wake-ups between them on two cores shared with the other runs (the target is a machine/runtime limit here, not Keel's)`
      : `a raw TCP pass-through (no parsing) added ${ms(net)} ms in the same rounds, so the hop itself fits in 1 ms here`;
  return `${floor}; an HTTP proxy that parses and re-sends (\`node:http\` pipe, keep-alive on both hops, the agent settings of Keel's transport) added ${ms(pipe)} ms and one through Node's \`fetch\` ${ms(fetchProxy)} ms; what Keel adds over the \`node:http\` floor is ${ms(keel - pipe)} ms (body validation, the orchestrator's call, the \`openai\` SDK, the answer re-written${mode === 'streamed' ? ' chunk by chunk' : ''})`;
}

await publish({
  order: 19.2,
  title: 'Issue 19: a stateless proxy hop (Chat Completions)',
  method: `One request, three paths (and three bare proxies beside them), with the official \`openai\` SDK (\`maxRetries: 0\`): a one-line prompt answered by the mock provider (\`@keel/testing\`, its own process, zero delay) with a sixty-word text (${REPLY.length} characters) — sent (a) directly to the mock's OpenAI endpoint, (b) through Keel's \`POST /v1/chat/completions\` (the built gateway, its own process, one \`openai-chat\` provider at the mock, \`model: "default"\`, stream mode \`live\`, log level warn; stateless: nothing is stored), (c) through Portkey's open-source gateway ${portkey.version} (its own process, headless, \`x-portkey-provider: openai\` with \`x-portkey-custom-host\` at the mock). Each round runs all ${variants.length} variants (${names.length} paths, streamed with \`stream_options.include_usage\` and not streamed) in a rotating order, one request at a time: ${ROUNDS} rounds after ${WARMUP} warm-up rounds (${seconds} s). Streamed: time to the first chunk the SDK yields and to the end of the stream (the last byte); not streamed: time to the parsed answer. Overhead = the variant's percentile minus the direct one's.`,
  baseline: 'the same request sent directly to the mock provider, in the same rounds.',
  tables: [
    {
      caption: 'Streamed (`stream: true`), ms',
      table: {
        columns: [
          'path',
          'first chunk p50',
          'first chunk p99',
          'first chunk p50 overhead',
          'last byte p50',
          'last byte p99',
          'last byte p50 overhead',
          'last byte p99 overhead',
        ],
        rows: streamedRows,
      },
    },
    {
      caption: 'Not streamed (`stream: false`), ms',
      table: {
        columns: ['path', 'p50', 'p99', 'p50 overhead', 'p99 overhead'],
        rows: wholeRows,
      },
    },
  ],
  targets: [
    {
      name: "Keel's overhead below Portkey's, not streamed (the fair comparison)",
      goal: `< ${ms(portkeyWhole)} ms`,
      measured: `${ms(keelWhole)} ms`,
      met: keelWhole < portkeyWhole,
      why: 'both forward a non-streamed request as one non-streamed call; Keel also runs it through the orchestrator (classification, retries, breakers, decisions, usage) and re-writes the answer in its own words, Portkey passes the JSON on (the profile note says where the time goes)',
    },
    {
      name: 'Keel p50 overhead, not streamed',
      goal: '≤ 1 ms',
      measured: `${ms(keelWhole)} ms (bare TCP pass-through ${ms(netWhole)} ms, bare pipe proxy ${ms(pipeWhole)} ms, bare fetch proxy ${ms(fetchWhole)} ms)`,
      met: keelWhole <= 1,
      why: floorWhy('whole'),
    },
    {
      name: "Keel's overhead below Portkey's, streamed (as measured; Portkey sleeps 25 ms)",
      goal: `< ${ms(portkeyStreamed)} ms`,
      measured: `${ms(keelStreamed)} ms`,
      met: keelStreamed < portkeyStreamed,
    },
    {
      name: 'Keel p50 overhead, streamed, to the last byte',
      goal: '≤ 1 ms',
      measured: `${ms(keelStreamed)} ms (first chunk +${ms(keelFirst)} ms; bare TCP pass-through ${ms(netStreamed)} ms, bare pipe proxy ${ms(pipeStreamed)} ms)`,
      met: keelStreamed <= 1,
      why: floorWhy('streamed'),
    },
  ],
  notes: [
    `Which comparison is fair: not streamed. Portkey ${portkey.version}'s stream reader waits 25 ms (\`setTimeout(…, 25)\` in its \`build/start-server.js\`) before it passes on the first chunk of every streamed answer, so its streamed overhead is mostly that sleep, not proxy work; the streamed table is reported as measured. Not streamed, Portkey's p50 overhead is ${ms(portkeyWhole)} ms and Keel's ${ms(keelWhole)} ms.`,
    `What each path does per request. Direct: one HTTP request to the mock. Keel: the client's request to the gateway (Fastify, body validation, route resolution), a stateless orchestrator call (the turn's classification, retry, breaker and fallback machinery, with nothing to retry here), the gateway's own request to the mock through \`@keel/transport\` (the \`openai\` SDK, its requests sent with \`node:http\` over a keep-alive agent) — streamed for a streamed client, one non-streamed call (\`delivery: 'whole'\`, timed by the whole-call timeout) for a client that asked for no stream — and the answer re-written (live: each text delta as it arrives as a chunk; not streamed: one JSON completion). Portkey: the client's request to Hono, its provider transform, a \`fetch\` to the mock, and the answer passed on (streamed: re-chunked, after its 25 ms sleep). The bare proxies: nothing validated, nothing re-written — TCP pass-through: each client connection piped to its own upstream connection, no HTTP parsing at all (no proxy can do less); pipe: the request parsed by \`node:http\` and streamed on with a keep-alive agent (the settings of Keel's transport: keep-alive, idle connections kept 4 s); fetch: body read, sent with Node's \`fetch\`, the answer streamed back. Every hop keeps its connections alive (the SDK clients, the pipe's agent, undici).`,
    "Where Keel's time goes, not streamed (profiled on 2026-12-02, not by this run: 800 not-streamed requests through the built gateway under `node --cpu-prof`, the upstream call unstreamed, with seven other people's work on the two cores — load about 20 — so shares rather than milliseconds; start-up left out): of the gateway's busy samples, the two loopback `writev`s per request (the upstream request, the answer; a write wakes the reader and the writer waits for a core) 22 %, garbage collection 17 % (the gateway sets V8's `--optimize-for-size`, a small young generation collected more often: in the same rounds a gateway started with `--no-optimize-for-size` used about 6 % less CPU per request), undici 8 % and Node's streams and web streams under it 6 %, the `openai` SDK's request building and answer parsing 6 %, the gateway's own code 6 % (its observers, event log and logs among it: each event is sized with `JSON.stringify` for the event log), the orchestrator 6 %, Fastify 3 %, the transport 2 %, abort signals ~1.5 %. Cut for issue 19 and gone from the profile: Node's `fetch` copying every upstream request (a tee of its body stream, ~3 %: the transport's clients now send `redirect: 'error'` and `window: null`, so the request is sent as built), the body schema's parse for the common text body (~1.5 %, now one pass that defers every other body to the schema) and the stream clocks' chunk reader on a whole answer (~1 %). Cut after that profile (issue 19, 2026-12-02): the transport's SDK clients send with `node:http` over a keep-alive agent instead of Node's `fetch` (undici's request and response machinery and the web streams on the request side, most of the 14 % above): side by side at load 23, 300 rounds, the gateway's CPU per not-streamed request went from 13.3 to 11.0 ms (−17 %) and its p50 overhead fell by a fifth, against an unchanged Portkey. Left, and not the compatible endpoint's own: the heap flag, the observers' per-event work (about 4 % together), the orchestrator's per-call settings and chain rebuild (under 1 %), and the AsyncLocalStorage stores of the keys and of the orchestrator's health reports (once one is live, every promise of the process pays its hook); no single function holds more than 1 %.",
    `${SMOKE ? 'Smoke run: ' : ''}${ROUNDS} requests per variant; a p99 is the ${Math.ceil(ROUNDS * 0.99)}th of ${ROUNDS} sorted times, so it moves with the machine's other load more than the p50.`,
  ],
});
