// What the OpenAI-compatible endpoint tests share: a built gateway in front of the mock provider
// with one Anthropic-wire and one OpenAI-wire provider, each test scoping its scripted answers by
// model name, and a raw reader of the gateway's `data:` stream.
import type { MockBehavior, MockProvider } from '@keel/testing';
import { type GatewayProcess, startGateway } from './support/gateway-process';

export const TOKEN = 'keel-compat-openai-token';

export interface CompatGatewayOptions {
  /** `models` (the default route); other routes under `routes`. */
  models: { primary: string; fallbacks?: string[] };
  routes?: Record<string, { primary: string; fallbacks?: string[] }>;
  settings?: Record<string, Record<string, unknown>>;
  retry?: Record<string, unknown>;
  turn?: Record<string, unknown>;
  compat?: Record<string, unknown>;
  shutdown?: Record<string, unknown>;
  authToken?: string;
}

/** Providers `ca` (anthropic-messages) and `co` (openai-chat), both on the mock. */
export function startCompatGateway(
  mock: MockProvider,
  options: CompatGatewayOptions,
): Promise<GatewayProcess> {
  return startGateway({
    config: {
      sessionsDir: 'sessions',
      ...(options.authToken === undefined ? {} : { server: { authToken: options.authToken } }),
      providers: [
        {
          id: 'ca',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-compat-openai-a' }],
        },
        {
          id: 'co',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-compat-openai-o' }],
        },
      ],
      models: {
        primary: options.models.primary,
        fallbacks: options.models.fallbacks ?? [],
        ...(options.settings === undefined ? {} : { settings: options.settings }),
      },
      ...(options.routes === undefined ? {} : { routes: options.routes }),
      retry: { maxRetries: 0, ...options.retry },
      turn: { firstTokenTimeoutMs: 5_000, stallTimeoutMs: 1_500, ...options.turn },
      ...(options.compat === undefined ? {} : { compat: options.compat }),
      ...(options.shutdown === undefined ? {} : { shutdown: options.shutdown }),
    },
  });
}

/** Queues behaviours answered only for `model`. */
export function script(mock: MockProvider, model: string, ...behaviors: MockBehavior[]): void {
  mock.enqueue(...behaviors.map((behavior) => ({ behavior, match: { model } })));
}

/** The mock's requests for `model` (what reached the upstream). */
export function upstream(mock: MockProvider, model: string) {
  return mock.requests.filter((request) => request.model === model);
}

/** A raw streamed request: every `data:` payload, in order, as sent (`[DONE]` kept as text). */
export async function rawStream(
  gateway: GatewayProcess,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; data: unknown[]; done: boolean; text: string }> {
  const response = await gateway.fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await response.text();
  const data = text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length))
    .map((payload) => (payload === '[DONE]' ? payload : JSON.parse(payload)));
  return { status: response.status, data, done: data.at(-1) === '[DONE]', text };
}

/** The gateway's `turn ended` log line of the call a completion id (`chatcmpl-…`) belongs to. */
export function turnEndOf(
  gateway: GatewayProcess,
  completionId: string,
): Promise<Record<string, unknown>> {
  const uuid = completionId.replace(/^chatcmpl-/, '');
  return gateway.waitForLog(
    (line) =>
      line['msg'] === 'turn ended' &&
      String(line['sessionId'])
        .replace(/^openai-/, '')
        .replaceAll('-', '') === uuid,
  );
}
