// Issue 21 item 11: one provider reply is capped (`turn.maxReplyBytes`): past it the turn ends
// with a clear `error`, a streaming client is told to drop what it was shown (`discard`), and
// nothing of the partial reply is stored. A reply within the cap is whole in the answer and, once,
// in the transcript, while the session's recent events keep only a bounded preview of it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { parseSse } from './support/sse-events';

const model = 'reply-cap';
const cap = 200_000;
let mock: MockProvider;
let gateway: GatewayProcess;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'rc',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-reply-cap' }],
        },
        {
          id: 'rc-backup',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-reply-cap-o' }],
        },
      ],
      models: { primary: `rc/${model}`, fallbacks: [`rc-backup/${model}-backup`] },
      retry: { maxRetries: 1 },
      turn: { maxReplyBytes: cap },
    },
  });
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  await mock?.close();
});

function script(text: string): void {
  mock.enqueue({ behavior: { type: 'ok', text, chunkSize: 4000 }, match: { model } });
}

async function transcriptText(sessionId: string): Promise<string> {
  return (await gateway.fetch(`/v1/sessions/${sessionId}/transcript`)).text();
}

describe('turn.maxReplyBytes', () => {
  it('ends a turn whose reply passes the cap with a clear error and stores none of it', async () => {
    script('w'.repeat(cap + 50_000));
    const requestsBefore = mock.requests.length;
    const answer = await sendMessage(gateway, 'cap-json', { text: 'everything, please' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ outcome: 'error', errorKind: 'invalid_request' });
    expect(String(answer.body['text'])).toMatch(/longer than this service accepts/);
    expect(String(answer.body['text'])).not.toContain('www');
    // No retry, no fallback: one request.
    expect(mock.requests.length - requestsBefore).toBe(1);

    const stored = await transcriptText('cap-json');
    expect(stored).not.toContain('www');
    const entries = (JSON.parse(stored) as { entries: Array<Record<string, unknown>> }).entries;
    expect(entries.filter((entry) => entry['role'] === 'assistant')).toEqual([]);
    expect(entries.at(-1)).toMatchObject({ type: 'turn', phase: 'end', outcome: 'error' });
  });

  it('tells a streaming client to discard what it was shown, then the error outcome', async () => {
    script('v'.repeat(cap + 50_000));
    const response = await gateway.fetch('/v1/sessions/cap-sse/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ text: 'everything, streamed' }),
    });
    const events = parseSse(await response.text());
    const names = events.map((event) => event.event);
    expect(names).toContain('discard');
    expect(names.at(-1)).toBe('outcome');
    expect(names.indexOf('discard')).toBeLessThan(names.lastIndexOf('outcome'));
    expect(events.at(-1)?.data).toMatchObject({ outcome: 'error', errorKind: 'invalid_request' });
    // What was shown before the discard never passed the cap.
    const shown = events
      .filter((event) => event.event === 'delta')
      .map((event) => String((event.data as { text?: string }).text ?? ''))
      .join('');
    expect(shown.length).toBeLessThanOrEqual(cap);
    expect(await transcriptText('cap-sse')).not.toContain('vvv');
  });

  it('answers a reply within the cap whole, while the recent events keep only a preview', async () => {
    const text = 'u'.repeat(cap - 10_000);
    script(text);
    const answer = await sendMessage(gateway, 'cap-fits', { text: 'a lot, not too much' });
    expect(answer.body).toMatchObject({ outcome: 'reply', text });
    expect(await transcriptText('cap-fits')).toContain(text);
    // Stored once: in the assistant message, not again in the turn's end.
    const file = await readFile(join(gateway.dir, 'sessions', 'cap-fits.jsonl'), 'utf8');
    expect(file.split(text).length - 1).toBe(1);

    const recent = await gateway.fetch('/v1/sessions/cap-fits/events');
    const body = await recent.text();
    expect(body.length).toBeLessThan(text.length / 2);
    const end = (JSON.parse(body) as { events: Array<Record<string, unknown>> }).events.find(
      (event) => event['type'] === 'turn-end',
    );
    expect(end).toMatchObject({ truncated: true, outcome: { kind: 'reply' } });
    const preview = (end?.['outcome'] as { text?: string } | undefined)?.text;
    expect(preview).toMatch(/^u+…$/);
  });
});
