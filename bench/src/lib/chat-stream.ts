/**
 * One streamed request through an OpenAI-compatible `POST /v1/chat/completions` as a client sees
 * it (the failover row's compat runs), read into the same `StreamedTurn` the native API gives: an
 * error status before the first byte, or the `data:` chunks to the end — text, the models the
 * chunks name, the usage chunk, an in-band `data: {"error":…}` and whether `[DONE]` came.
 */
import type { StreamedTurn, TurnAnswer } from './gateway-turn';

export interface ChatStreamOptions {
  /** A route name (`default`) or `providerId/model`. */
  model: string;
  text: string;
  /** Sent as `x-keel-stream-mode`. */
  mode: 'live' | 'buffered';
  signal: AbortSignal;
}

interface ChatError {
  message?: string;
  type?: string;
  code?: string | null;
}

interface ChatChunk {
  model?: string;
  choices?: Array<{ delta?: { content?: string | null } }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: ChatError;
}

/**
 * POSTs `text` as a streamed chat completion and reads the answer to its end. A reply is what an
 * SDK presents (the text of every chunk, `[DONE]` or not); an error status or an in-band error is
 * an `error` outcome whose `errorKind` says which (`HTTP 503 overloaded`, `in-band
 * stream_interrupted`). Rejects when `signal` aborts first (the caller's limit: a hang).
 */
export async function streamChat(url: string, options: ChatStreamOptions): Promise<StreamedTurn> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-keel-stream-mode': options.mode },
    body: JSON.stringify({
      model: options.model,
      messages: [{ role: 'user', content: options.text }],
      stream: true,
      stream_options: { include_usage: true },
    }),
    signal: options.signal,
  });
  if (!response.ok || response.body === null) {
    const body = (await response.json().catch(() => ({}))) as { error?: ChatError };
    const retryAfter = response.headers.get('retry-after');
    const answer: TurnAnswer = {
      outcome: 'error',
      text: body.error?.message ?? '',
      errorKind: `HTTP ${response.status} ${body.error?.code ?? body.error?.type ?? 'no error body'}`,
      ...(retryAfter === null ? {} : { retryAfterMs: Number(retryAfter) * 1000 }),
    };
    return { answer, shown: '', discards: 0, ms: performance.now() - started, chunkModels: [] };
  }
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  let terminal = false;
  let inBand: ChatError | undefined;
  let usage: TurnAnswer['usage'];
  const models = new Set<string>();
  const read = (data: string) => {
    if (data === '[DONE]') {
      terminal = true;
      return;
    }
    const chunk = JSON.parse(data) as ChatChunk;
    if (chunk.error !== undefined) {
      inBand = chunk.error;
      return;
    }
    if (chunk.model !== undefined) models.add(chunk.model);
    text += chunk.choices?.[0]?.delta?.content ?? '';
    if (chunk.usage != null) {
      usage = {
        inputTokens: chunk.usage.prompt_tokens ?? 0,
        outputTokens: chunk.usage.completion_tokens ?? 0,
      };
    }
  };
  for await (const bytes of response.body) {
    buffer += decoder.decode(bytes as Uint8Array, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      for (const line of buffer.slice(0, end).split('\n')) {
        if (line.startsWith('data: ')) read(line.slice(6));
      }
      buffer = buffer.slice(end + 2);
    }
  }
  const chunkModels = [...models];
  const model = chunkModels.at(-1);
  const answer: TurnAnswer =
    inBand === undefined
      ? {
          outcome: 'reply',
          text,
          ...(model === undefined ? {} : { model }),
          ...(usage === undefined ? {} : { usage }),
        }
      : {
          outcome: 'error',
          text: inBand.message ?? '',
          errorKind: `in-band ${inBand.code ?? inBand.type ?? 'error'}`,
        };
  return {
    answer,
    shown: text,
    discards: 0,
    ms: performance.now() - started,
    terminal,
    chunkModels,
  };
}
