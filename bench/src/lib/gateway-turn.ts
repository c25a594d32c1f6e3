/**
 * One message through the gateway's native API as a streaming client sees it (the failover row):
 * the event stream read to its `outcome`, what the client was left showing after the last
 * `discard`, and afterwards the turn's own record (attempts and their decisions) from the
 * session's events.
 */

/** The `outcome` event: the answer to a message (`apps/gateway` "The answer to a message"). */
export interface TurnAnswer {
  outcome: string;
  text: string;
  model?: string;
  provider?: string;
  errorKind?: string;
  retryAfterMs?: number;
  usage?: { inputTokens?: number; outputTokens?: number };
}

export interface StreamedTurn {
  answer: TurnAnswer;
  /** The deltas after the last `discard`: what a client following the contract shows. */
  shown: string;
  discards: number;
  /** From the request to the `outcome` event. */
  ms: number;
  /** Chat Completions only: the stream ended with `data: [DONE]`. */
  terminal?: boolean;
  /** Chat Completions only: every `model` its chunks named, in order of first appearance. */
  chunkModels?: string[];
}

/** An attempt as the turn recorded it (`AttemptRecord` of `@keel/spec`, the fields read here). */
export interface RecordedAttempt {
  attempt: number;
  target: { providerId: string; profileId: string; model: string };
  outcome: 'ok' | 'error' | 'skipped';
  requestSent: boolean;
  errorKind?: string;
  decision?: string;
}

/**
 * POSTs `text` to a session with `Accept: text/event-stream` and reads the stream to its end.
 * Rejects when `signal` aborts first (the caller's limit: a hang) or the stream ends without an
 * `outcome`.
 */
export async function streamMessage(
  url: string,
  sessionId: string,
  text: string,
  signal: AbortSignal,
): Promise<StreamedTurn> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ text }),
    signal,
  });
  if (!response.ok || response.body === null) {
    throw new Error(`gateway answered ${response.status}: ${await response.text()}`);
  }
  const decoder = new TextDecoder();
  let buffer = '';
  let shown = '';
  let discards = 0;
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const event = parseEvent(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (event === undefined) continue;
      if (event.name === 'delta') shown += String((event.data as { text?: unknown }).text ?? '');
      if (event.name === 'discard') {
        shown = '';
        discards += 1;
      }
      if (event.name === 'outcome') {
        return {
          answer: event.data as TurnAnswer,
          shown,
          discards,
          ms: performance.now() - started,
        };
      }
    }
  }
  throw new Error('the event stream ended without an outcome');
}

function parseEvent(block: string): { name: string; data: unknown } | undefined {
  let name = 'message';
  let data = '';
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) name = line.slice(7);
    else if (line.startsWith('data: ')) data += line.slice(6);
  }
  if (data === '') return undefined;
  return { name, data: JSON.parse(data) };
}

/** The attempts of the session's last finished turn (its `turn-end` event), oldest first. */
export async function lastTurnAttempts(url: string, sessionId: string): Promise<RecordedAttempt[]> {
  const response = await fetch(`${url}/v1/sessions/${sessionId}/events?limit=1000`);
  if (!response.ok) return [];
  const { events } = (await response.json()) as {
    events: Array<{ type: string; outcome?: { attempts?: RecordedAttempt[] } }>;
  };
  const end = events.filter((event) => event.type === 'turn-end').at(-1);
  return end?.outcome?.attempts ?? [];
}
