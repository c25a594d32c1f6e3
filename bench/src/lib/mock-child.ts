/**
 * The loopback mock provider in a process of its own (as a real provider is), controlled by its
 * parent over IPC. Argument: the options as JSON (`MockChildOptions`).
 */
import { createMockProvider, type MockScriptEntry } from '@keel/testing';

export interface MockChildOptions {
  reply: string;
  latencyMs?: number;
  /** Script entries; `match.model` strings only (JSON). */
  script?: MockScriptEntry[];
}

export type MockCommand =
  | { id: number; type: 'stats' }
  | { id: number; type: 'log'; models: string[] }
  | { id: number; type: 'reset' }
  | { id: number; type: 'enqueue'; entries: MockScriptEntry[] };

/** One model request as the provider saw it (the failover row's request log). */
export interface MockLogEntry {
  model: string;
  /** `Date.now()` when it arrived. */
  receivedAt: number;
  /** Its last message is the assistant's (a prefill). */
  prefill: boolean;
  /** Characters of its messages as JSON: how large the prompt was. */
  promptChars: number;
  /** The behaviour that answered it (`ok`, `http-error`, `hang`…). */
  behavior: string;
}

export interface MockStats {
  total: number;
  byModel: Record<string, number>;
  byModelAndKey: Record<string, number>;
}

const options = JSON.parse(process.argv[2] ?? '{}') as MockChildOptions;
const provider = await createMockProvider({
  defaultReply: () => options.reply,
  ...(options.latencyMs === undefined ? {} : { latencyMs: options.latencyMs }),
  ...(options.script === undefined ? {} : { script: options.script }),
});
let counted = 0;
const stats: MockStats = { total: 0, byModel: {}, byModelAndKey: {} };
function count(): MockStats {
  // The provider keeps every request; tally only the new ones, then let them go.
  const requests = provider.requests;
  for (; counted < requests.length; counted += 1) {
    const request = requests[counted];
    if (request === undefined || request.api === 'other' || request.api === 'count-tokens')
      continue;
    const model = request.model ?? '';
    stats.total += 1;
    stats.byModel[model] = (stats.byModel[model] ?? 0) + 1;
    const key = `${model} ${request.apiKey ?? ''}`;
    stats.byModelAndKey[key] = (stats.byModelAndKey[key] ?? 0) + 1;
  }
  return structuredClone(stats);
}
/** The model requests so far to any of `models`, oldest first. */
function logOf(models: string[]): MockLogEntry[] {
  const wanted = new Set(models);
  return provider.requests
    .filter((request) => request.model !== undefined && wanted.has(request.model))
    .map((request) => {
      const messages = Array.isArray(request.messages) ? (request.messages as unknown[]) : [];
      const last = messages[messages.length - 1] as { role?: unknown } | undefined;
      return {
        model: request.model ?? '',
        receivedAt: request.receivedAt,
        prefill: last?.role === 'assistant',
        promptChars: JSON.stringify(request.messages ?? null).length,
        behavior: request.behavior,
      };
    });
}
process.on('message', (message: MockCommand) => {
  switch (message.type) {
    case 'log':
      process.send?.({ id: message.id, log: logOf(message.models) });
      return;
    case 'stats':
      process.send?.({ id: message.id, stats: count() });
      return;
    case 'reset':
      provider.reset();
      counted = 0;
      stats.total = 0;
      stats.byModel = {};
      stats.byModelAndKey = {};
      process.send?.({ id: message.id });
      return;
    case 'enqueue':
      provider.enqueue(...message.entries);
      process.send?.({ id: message.id });
      return;
  }
});
process.on('disconnect', () => {
  void provider.close().then(() => process.exit(0));
});
console.log(`MOCK_LISTENING ${provider.url}`);
