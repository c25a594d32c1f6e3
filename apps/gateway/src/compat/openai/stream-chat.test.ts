// The live stream's two guards, each alone, over a real Fastify reply: a discard after text went
// out, and another attempt's output after a tool-call-only attempt (no discard then), both end the
// stream with an in-band error, no `[DONE]`, and stop the call; a complete call ends with `[DONE]`.
import type { CallOutcome, TurnEvent } from '@keel/spec';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { streamBuffered, streamLive } from './stream-chat';

const base = { sessionId: 'openai-0000-0001', turnId: 't1', at: 0 };
const attempt = (n: number, model: string): TurnEvent => ({
  ...base,
  type: 'attempt-start',
  attempt: n,
  target: { providerId: 'p', profileId: 'k', model },
  probe: false,
});
const output = (n: number, event: Extract<TurnEvent, { type: 'model-event' }>['event']) =>
  ({ ...base, type: 'model-event', attempt: n, event }) satisfies TurnEvent;
const reply: CallOutcome = {
  kind: 'reply',
  text: 'Hi.',
  content: [{ type: 'text', text: 'Hi.' }],
  finish: 'stop',
  callId: 'openai-0000-0001',
  turnId: 't1',
  model: 'p/second',
  usage: { inputTokens: 9, outputTokens: 2 },
  attempts: [],
};

/** Feeds `events` then resolves `outcome` through a stream mode; what the client read. */
async function serve(
  mode: typeof streamLive,
  events: TurnEvent[],
  outcome: CallOutcome,
): Promise<{ data: unknown[]; stopped: boolean }> {
  const app = Fastify();
  let stopped = false;
  app.post('/', (_request, fastifyReply) =>
    mode({
      reply: fastifyReply,
      includeUsage: true,
      run: async ({ onEvent, signal }) => {
        for (const event of events) onEvent?.(event);
        stopped = signal.aborted;
        return outcome;
      },
    }),
  );
  const response = await app.inject({ method: 'POST', url: '/' });
  await app.close();
  const data = [...response.body.matchAll(/^data: (.*)$/gm)].map((match) =>
    match[1] === '[DONE]' ? '[DONE]' : JSON.parse(match[1] as string),
  );
  return { data, stopped };
}

describe('streamLive', () => {
  it('a complete call: the role naming the attempt’s model, the text, finish, usage, [DONE]', async () => {
    const { data, stopped } = await serve(
      streamLive,
      [attempt(1, 'first'), output(1, { type: 'text-delta', text: 'Hi.' })],
      { ...reply, model: 'p/first' },
    );
    expect(data).toMatchObject([
      { model: 'p/first', id: 'chatcmpl-00000001', choices: [{ delta: { role: 'assistant' } }] },
      { choices: [{ delta: { content: 'Hi.' } }] },
      { choices: [{ finish_reason: 'stop' }] },
      { choices: [], usage: { total_tokens: 11 } },
      '[DONE]',
    ]);
    expect(stopped).toBe(false);
  });

  it('a discard after text: an in-band error, no [DONE], the call stopped', async () => {
    const { data, stopped } = await serve(
      streamLive,
      [
        attempt(1, 'first'),
        output(1, { type: 'text-delta', text: 'Hel' }),
        { ...base, type: 'discard', attempt: 1, reason: 'connection' },
      ],
      reply,
    );
    expect(data).toHaveLength(3);
    expect(data).not.toContain('[DONE]');
    expect(data.at(-1)).toMatchObject({ error: { type: 'server_error' } });
    expect(stopped).toBe(true);
  });

  it('another attempt after a tool-call-only attempt (no discard): an in-band error, the call stopped', async () => {
    const { data, stopped } = await serve(
      streamLive,
      [
        attempt(1, 'first'),
        output(1, { type: 'tool-call', id: 'c1', name: 'f', input: {} }),
        attempt(2, 'second'),
        output(2, { type: 'tool-call', id: 'c2', name: 'f', input: {} }),
      ],
      reply,
    );
    expect(data.filter((item) => JSON.stringify(item).includes('"tool_calls"'))).toHaveLength(1);
    expect(data.at(-1)).toMatchObject({ error: { type: 'server_error' } });
    expect(data).not.toContain('[DONE]');
    expect(stopped).toBe(true);
  });
});

describe('streamBuffered', () => {
  it('shows nothing of a voided attempt: only the outcome, named for the model that answered', async () => {
    const { data } = await serve(
      streamBuffered,
      [
        attempt(1, 'first'),
        output(1, { type: 'text-delta', text: 'Hel' }),
        { ...base, type: 'discard', attempt: 1, reason: 'connection' },
      ],
      reply,
    );
    expect(JSON.stringify(data)).not.toContain('Hel"');
    expect(data).toMatchObject([
      { model: 'p/second', choices: [{ delta: { role: 'assistant' } }] },
      { choices: [{ delta: { content: 'Hi.' } }] },
      { choices: [{ finish_reason: 'stop' }] },
      { usage: { prompt_tokens: 9 } },
      '[DONE]',
    ]);
  });
});
