// A reply is stored once: in its assistant messages. The turn's end leaves its text out, and a
// repeated clientMessageId rebuilds the same answer from the messages (across tool steps too).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolRunner } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const tools: ToolRunner = {
  definitions: [{ name: 'lookup', description: 'Looks up', inputSchema: { type: 'object' } }],
  async run() {
    return { content: 'found' };
  },
};

const occurrences = (text: string, piece: string) => text.split(piece).length - 1;

describe('a reply is stored once', () => {
  it('the transcript holds the reply in its message only, and a repeat answers it whole', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'ok', text: 'the-unique-reply-7f3a' }, match: primary }],
    });
    const first = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      clientMessageId: 'c-1',
    });
    expect(first).toMatchObject({ kind: 'reply', text: 'the-unique-reply-7f3a' });
    const file = await readFile(join(harness.sessionsDir, 's1.jsonl'), 'utf8');
    expect(occurrences(file, 'the-unique-reply-7f3a')).toBe(1);
    const end = (await harness.entries('s1')).at(-1);
    expect(end).toMatchObject({ type: 'turn', phase: 'end', outcome: 'reply' });
    expect(end).not.toHaveProperty('text');

    const requests = harness.mock.requests.length;
    const again = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      clientMessageId: 'c-1',
    });
    expect(again).toMatchObject({
      kind: 'reply',
      text: 'the-unique-reply-7f3a',
      turnId: first.turnId,
    });
    expect(harness.mock.requests.length).toBe(requests);
  });

  it('a reply over tool steps is rebuilt as the turn joined it', async () => {
    harness = await createHarness({
      tools,
      script: [
        {
          behavior: {
            type: 'ok',
            text: 'Let me look.',
            toolCalls: [{ id: 't1', name: 'lookup', input: { q: 'x' } }],
          },
          match: primary,
        },
        { behavior: { type: 'ok', text: 'It was found.' }, match: primary },
      ],
    });
    const first = await harness.orchestrator.runTurn({
      sessionId: 's2',
      input: 'find it',
      clientMessageId: 'c-2',
    });
    expect(first.text).toBe('Let me look.\n\nIt was found.');
    expect((await harness.entries('s2')).at(-1)).not.toHaveProperty('text');
    const again = await harness.orchestrator.runTurn({
      sessionId: 's2',
      input: 'find it',
      clientMessageId: 'c-2',
    });
    expect(again.text).toBe(first.text);
  });

  it('an error keeps its copy in the turn end', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'http-error', status: 400 }, match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's3', input: 'hello' });
    expect(outcome.kind).toBe('error');
    expect((await harness.entries('s3')).at(-1)).toMatchObject({ text: outcome.text });
  });
});
