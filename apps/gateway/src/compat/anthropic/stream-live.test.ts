// The live stream's guards, each alone, over a real Fastify reply: a discard after bytes went out,
// and another attempt after a tool-call-only attempt (no discard then) both end the stream with
// `event: error`, no `message_stop`, and abort the call; a complete call ends with `message_stop`.
import type { CallOutcome, TurnEvent } from '@keel/spec';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLiveStream } from './stream-live';

const base = { sessionId: 'anthropic-call-1', turnId: 't1', at: 0 };
const target = (model: string) => ({ providerId: 'p', profileId: 'k', model });
const attempt = (n: number, model: string): TurnEvent => ({
  ...base,
  type: 'attempt-start',
  attempt: n,
  target: target(model),
  probe: false,
});
const text = (n: number, value: string): TurnEvent => ({
  ...base,
  type: 'model-event',
  attempt: n,
  event: { type: 'text-delta', text: value },
});
const reply: CallOutcome = {
  kind: 'reply',
  text: 'Hi.',
  content: [{ type: 'text', text: 'Hi.' }],
  finish: 'stop',
  callId: 'anthropic-call-1',
  turnId: 't1',
  model: 'p/first',
  usage: { inputTokens: 9, outputTokens: 2 },
  attempts: [],
};
const failed: CallOutcome = { ...reply, kind: 'error', errorKind: 'connection', content: [] };

/** Feeds `events` (then `outcome`) to a live stream of a real reply; the events the client read. */
async function run(events: TurnEvent[], outcome: CallOutcome) {
  const app = Fastify();
  let aborts = 0;
  let abortsBeforeEnd = 0;
  app.post('/', async (_request, fastifyReply) => {
    const live = createLiveStream({
      reply: fastifyReply,
      idOf: (callId) => `msg_${callId}`,
      abort: () => {
        aborts += 1;
      },
    });
    for (const event of events) live.onEvent(event);
    abortsBeforeEnd = aborts;
    if (live.started()) live.end(outcome);
    return fastifyReply;
  });
  const response = await app.inject({ method: 'POST', url: '/' });
  await app.close();
  const names = [...response.body.matchAll(/^event: (.*)$/gm)].map((match) => match[1]);
  return { names, body: response.body, aborts, abortsBeforeEnd };
}

describe('createLiveStream', () => {
  it('a complete call: message_start naming the attempt’s model, the text, message_stop', async () => {
    const { names, body, aborts } = await run([attempt(1, 'first'), text(1, 'Hi.')], reply);
    expect(names).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(body).toContain('"model":"p/first"');
    expect(body).toContain('"id":"msg_anthropic-call-1"');
    expect(aborts).toBe(0);
  });

  it('a discard after text ends with event: error and aborts the call', async () => {
    const discard: TurnEvent = { ...base, type: 'discard', attempt: 1, reason: 'connection' };
    const { names, aborts, abortsBeforeEnd } = await run(
      [attempt(1, 'first'), text(1, 'Hel'), discard],
      failed,
    );
    expect(names.at(-1)).toBe('error');
    expect(names).not.toContain('message_stop');
    // At the discard itself, before the call ends: nothing more is tried.
    expect(abortsBeforeEnd).toBe(1);
    expect(aborts).toBe(1);
  });

  it('another attempt after a tool-call-only attempt (no discard) ends with event: error', async () => {
    const toolCall: TurnEvent = {
      ...base,
      type: 'model-event',
      attempt: 1,
      event: { type: 'tool-call', id: 'toolu_1', name: 'weather', input: {} },
    };
    const { names, aborts, body } = await run(
      [attempt(1, 'first'), toolCall, attempt(2, 'second'), text(2, 'other')],
      reply,
    );
    expect(names.at(-1)).toBe('error');
    expect(names).not.toContain('message_stop');
    expect(body).not.toContain('other');
    expect(aborts).toBe(1);
  });

  it('a call that fails after text without another attempt ends with event: error', async () => {
    const { names } = await run([attempt(1, 'first'), text(1, 'Hel')], failed);
    expect(names.at(-1)).toBe('error');
    expect(names).not.toContain('message_stop');
  });
});
