/**
 * Row 4: the primary model is overloaded on all three of its profiles (keys), the fallback model
 * is healthy. Time until the fallback's first token reaches the client, and requests sent to the
 * primary: the Keel gateway vs a naive policy (SDK default retries on every profile in turn,
 * then the fallback: OpenClaw before its fix) vs Portkey's fallback config.
 */
import type { MockScriptEntry } from '@keel/testing';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { pick } from './lib/env';
import { mockGatewayConfig, startKeelGateway } from './lib/keel-gateway';
import { startMockProcess } from './lib/mock-process';
import { startPortkey } from './lib/portkey';
import { publish } from './lib/result';
import { median, ms, ratio } from './lib/stats';

const ROUNDS = pick(5, 1);
const PRIMARY = 'primary-model';
const FALLBACK = 'fallback-model';
const KEYS = ['sk-primary-1', 'sk-primary-2', 'sk-primary-3'];
const FALLBACK_KEY = 'sk-fallback';

/** The overload on every key of `model`. OpenAI wording: 503 "…currently overloaded…", no retry-after. */
const overloaded = (model: string): MockScriptEntry => ({
  behavior: {
    type: 'http-error',
    status: 529,
    errorType: 'overloaded_error',
    message: 'Overloaded',
    openai: {
      status: 503,
      errorType: 'server_error',
      message:
        'That model is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists.',
    },
  },
  match: { model },
  times: 1e9,
});
const mock = await startMockProcess({ reply: 'answer' });
const portkey = await startPortkey();

async function primaryRequests<T>(
  model: string,
  run: () => Promise<T>,
): Promise<{ value: T; primary: number }> {
  const before = (await mock.stats()).byModel[model] ?? 0;
  const value = await run();
  const after = (await mock.stats()).byModel[model] ?? 0;
  return { value, primary: after - before };
}

/** Ms from `started` until the first text chunk of an OpenAI stream. */
async function firstToken(
  stream: AsyncIterable<{ choices: Array<{ delta: { content?: string | null } }> }>,
  started: number,
): Promise<number> {
  let at: number | undefined;
  for await (const chunk of stream) {
    if (at === undefined && (chunk.choices[0]?.delta.content ?? '') !== '') at = performance.now();
  }
  if (at === undefined) throw new Error('no token');
  return at - started;
}

const request = (model: string): ChatCompletionCreateParamsStreaming => ({
  model,
  messages: [{ role: 'user', content: 'hello' }],
  stream: true,
  max_completion_tokens: 64,
});

/** OpenClaw before its fix: the SDK's default retries on each profile in turn, then the fallback. */
async function naive(model: string): Promise<number> {
  const started = performance.now();
  for (const apiKey of KEYS) {
    const client = new OpenAI({ apiKey, baseURL: mock.openaiBaseUrl }); // default maxRetries (2)
    try {
      return await firstToken(await client.chat.completions.create(request(model)), started);
    } catch {
      // overloaded after the SDK's retries: next profile
    }
  }
  const fallback = new OpenAI({ apiKey: FALLBACK_KEY, baseURL: mock.openaiBaseUrl });
  return firstToken(await fallback.chat.completions.create(request(FALLBACK)), started);
}

/** Portkey's fallback strategy over the three primary keys, then the fallback model. */
async function viaPortkey(model: string): Promise<number> {
  const target = (apiKey: string, model: string) => ({
    provider: 'openai',
    api_key: apiKey,
    custom_host: mock.openaiBaseUrl,
    override_params: { model },
  });
  const client = new OpenAI({
    apiKey: 'unused',
    baseURL: `${portkey.url}/v1`,
    maxRetries: 0,
    defaultHeaders: {
      'x-portkey-config': JSON.stringify({
        strategy: { mode: 'fallback' },
        targets: [...KEYS.map((key) => target(key, model)), target(FALLBACK_KEY, FALLBACK)],
      }),
    },
  });
  const started = performance.now();
  return firstToken(await client.chat.completions.create(request(model)), started);
}

/** Selects `model` for a new session, then streams one message: ms to the first `delta` event. */
async function keelMessage(url: string, session: string, model: string): Promise<number> {
  const selected = await fetch(`${url}/v1/sessions/${session}/model`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: `primary/${model}` }),
  });
  if (!selected.ok) throw new Error(`model selection failed: ${selected.status}`);
  const started = performance.now();
  const response = await fetch(`${url}/v1/sessions/${session}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ text: 'hello' }),
  });
  if (response.body === null) throw new Error('no body');
  let buffer = '';
  let at: number | undefined;
  let outcome = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    if (at === undefined && buffer.includes('event: delta')) at = performance.now();
    const match = /event: outcome\ndata: (.*)\n/.exec(buffer);
    if (match?.[1] !== undefined) outcome = JSON.parse(match[1]).outcome;
  }
  if (at === undefined || outcome !== 'reply') throw new Error(`no reply (${outcome}): ${buffer}`);
  return at - started;
}

const samples = {
  keel: [] as number[],
  keelPrimary: [] as number[],
  keelWarm: [] as number[],
  keelWarmPrimary: [] as number[],
  naive: [] as number[],
  naivePrimary: [] as number[],
  portkey: [] as number[],
  portkeyPrimary: [] as number[],
};
// One gateway. Each round overloads a model of its own and every variant asks for that model (a
// Keel session selects it first), so each round meets closed breakers, as a first overload
// does. Round -1 is a warm-up: every code path, errors and fallback included, has run once.
const gateway = await startKeelGateway(
  mockGatewayConfig({
    baseUrl: mock.openaiBaseUrl,
    sessionsDir: 'sessions',
    providers: [
      { id: 'primary', keys: KEYS },
      { id: 'backup', keys: [FALLBACK_KEY] },
    ],
    // The configured chain is the fallback alone: a session's selection goes first, then the
    // chain, so a session that selects a round's model meets exactly that model, then the fallback.
    primary: `backup/${FALLBACK}`,
    // Only configured models may be selected: every round's model is declared.
    extra: {
      models: {
        primary: `backup/${FALLBACK}`,
        fallbacks: [],
        settings: Object.fromEntries(
          Array.from({ length: ROUNDS + 1 }, (_, index) => [`primary/${PRIMARY}-${index}`, {}]),
        ),
      },
    },
  }),
);
for (let round = -1; round < ROUNDS; round += 1) {
  const model = `${PRIMARY}-${round + 1}`;
  await mock.enqueue(overloaded(model));
  const order = [0, 1, 2].map((index) => (index + round + 1) % 3);
  const record = round >= 0;
  for (const variant of order) {
    if (variant === 0) {
      const cold = await primaryRequests(model, () =>
        keelMessage(gateway.url, `first-${round}`, model),
      );
      // The next session, right after: its first overloaded answer is the third in a row, the
      // evidence that opens the model's breaker for every session (so its second key is skipped).
      const warm = await primaryRequests(model, () =>
        keelMessage(gateway.url, `next-${round}`, model),
      );
      if (!record) continue;
      samples.keel.push(cold.value);
      samples.keelPrimary.push(cold.primary);
      samples.keelWarm.push(warm.value);
      samples.keelWarmPrimary.push(warm.primary);
    } else if (variant === 1) {
      const result = await primaryRequests(model, () => naive(model));
      if (!record) continue;
      samples.naive.push(result.value);
      samples.naivePrimary.push(result.primary);
    } else {
      const result = await primaryRequests(model, () => viaPortkey(model));
      if (!record) continue;
      samples.portkey.push(result.value);
      samples.portkeyPrimary.push(result.primary);
    }
  }
}
await gateway.close();

const naiveMs = median(samples.naive);
const keelMs = median(samples.keel);
const keelPrimary = Math.max(...samples.keelPrimary);
const row = (name: string, times: number[], primary: number[]) => [
  name,
  ms(median(times)),
  `${ms(Math.min(...times))}–${ms(Math.max(...times))}`,
  ratio(median(times), naiveMs),
  `${Math.min(...primary)}–${Math.max(...primary)}`,
];
await publish({
  order: 4,
  title: '4. Time to fallback',
  method: `The primary model answers every request with the provider's overload error (OpenAI wording, HTTP 503, no \`retry-after\`) on all three of its keys; the fallback model (another provider entry) answers at once. Each variant streams one message and times the fallback's first token at the client; the mock counts the requests the primary received. ${ROUNDS} rounds after one warm-up round, variants in rotating order; each round overloads a model of its own, which every variant asks for (a Keel session selects it first: \`PUT /v1/sessions/:id/model\`), so Keel meets a closed breaker each round, as at a first overload; right after, a second Keel session sends a message too. Naive: the \`openai\` SDK with its default retries (2, with its backoff) on each key in turn, then the fallback (what OpenClaw did before its fix). Portkey ${portkey.version}: its \`fallback\` strategy over the three primary keys and then the fallback model, no retries (its default).`,
  baseline: 'the naive policy, in the same run.',
  tables: [
    {
      table: {
        columns: [
          'variant',
          'first token ms (median)',
          'range ms',
          'vs naive',
          'primary requests (min–max)',
        ],
        rows: [
          row('naive (SDK retries, every key, then fallback)', samples.naive, samples.naivePrimary),
          row('Portkey fallback config', samples.portkey, samples.portkeyPrimary),
          row('Keel gateway', samples.keel, samples.keelPrimary),
          row(
            'Keel gateway, next session (its failure opens the breaker)',
            samples.keelWarm,
            samples.keelWarmPrimary,
          ),
        ],
      },
    },
  ],
  targets: [
    {
      name: "Keel time to the fallback's first token",
      goal: '≥ 10× faster than naive',
      measured: `${(naiveMs / keelMs).toFixed(0)}× faster (${ms(keelMs)} vs ${ms(naiveMs)} ms)`,
      met: naiveMs / keelMs >= 10,
    },
    {
      name: 'requests to the overloaded primary',
      goal: '≤ 2',
      measured: String(keelPrimary),
      met: keelPrimary <= 2,
    },
  ],
  notes: [
    "Keel sends the overloaded primary exactly two requests (one profile rotation, `rotate_profile`), then falls back (`fallback_model`) without waiting: an overload is not retried on the same model. One session's two overloaded answers are not evidence enough to open the model's breaker (it opens on at least 3 failures that are at least half of the model's requests in 30 s, never on one unlucky turn): the next session's first request is the third failure, which opens it, so that session skips the primary's second key (a skipped attempt, itself a `fallback_model` decision) and every later session skips the model until one probe is let through. Portkey tries each target once, so it sends one request per primary key; the naive policy sends three per key (the SDK's two retries) and sleeps the SDK's backoff between them.",
  ],
});
await Promise.all([portkey.service.stop(), mock.close()]);
