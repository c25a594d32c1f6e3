// What one model call leaves in its progress (stream-attempt.ts), event by event: text pieces
// joined into one text block per message (empty pieces leave nothing), tool calls and a port's
// own tool results in messages of their own role, the time of the first output, the usage without
// its `type`, the tools the orchestrator must run (none for a port that runs its own), and a
// stream without `finish` rejected as cut short. The port is a scripted one (the model boundary).
import type { ModelEvent, ModelPort } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { IncompleteAttemptError } from '../src/incomplete-attempt-error';
import { createProgress, streamAttempt } from '../src/stream-attempt';

function scriptedPort(events: ModelEvent[], runsOwnTools = false): ModelPort {
  return {
    specificationVersion: 'v1',
    provider: 'scripted',
    api: 'scripted',
    capabilities: { runsOwnTools, bindsSessions: false },
    async *stream() {
      yield* events;
    },
  };
}

/** Streams `events`; the clock reads 100 during the first event, 200 during the second, … */
async function run(events: ModelEvent[], runsOwnTools = false) {
  const progress = createProgress();
  const seen: ModelEvent[] = [];
  const toRun = await streamAttempt({
    port: scriptedPort(events, runsOwnTools),
    request: { model: 'm', messages: [] },
    callOptions: {},
    now: () => (seen.length + 1) * 100,
    onEvent: (event) => seen.push(event),
    progress,
  });
  return { progress, toRun, seen };
}

const finish: ModelEvent = { type: 'finish', reason: 'stop' };

describe('streamAttempt', () => {
  it('joins text pieces into one block, drops empty ones, and keeps the first output’s time', async () => {
    const { progress, seen } = await run([
      { type: 'text-delta', text: '' },
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: '' },
      { type: 'text-delta', text: 'lo' },
      { type: 'refusal', text: '!' },
      { type: 'usage', inputTokens: 3, outputTokens: 2 },
      finish,
    ]);
    expect(progress).toStrictEqual({
      segments: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] }],
      text: 'Hello!',
      firstOutputAt: 100,
      usage: { inputTokens: 3, outputTokens: 2 },
      finish: 'stop',
    });
    expect(seen).toHaveLength(7);
  });

  it('a tool call splits the text; its result (a port’s own) is a tool message; text after it a new one', async () => {
    const { progress, toRun } = await run(
      [
        { type: 'text-delta', text: 'Looking.' },
        { type: 'tool-call', id: 't1', name: 'lookup', input: { q: 1 } },
        { type: 'tool-result', toolUseId: 't1', content: 'found' },
        { type: 'tool-result', toolUseId: 't2', content: 'failed', isError: true },
        { type: 'text-delta', text: 'Found.' },
        finish,
      ],
      true,
    );
    expect(progress.segments).toStrictEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 't1', name: 'lookup', input: { q: 1 } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool_result', toolUseId: 't1', content: 'found' },
          { type: 'tool_result', toolUseId: 't2', content: 'failed', isError: true },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Found.' }] },
    ]);
    expect(progress.text).toBe('Looking.Found.');
    expect(toRun).toEqual([]);
  });

  it('a tool call is output (its time counts) and is the orchestrator’s to run; an empty piece after it adds nothing', async () => {
    const { progress, toRun } = await run([
      { type: 'tool-call', id: 't1', name: 'lookup', input: {} },
      { type: 'text-delta', text: '' },
      finish,
    ]);
    expect(progress.firstOutputAt).toBe(100);
    expect(toRun).toStrictEqual([{ id: 't1', name: 'lookup', input: {} }]);
    expect(progress.segments).toStrictEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'lookup', input: {} }] },
    ]);
  });

  it('a stream that ends without finish is cut short', async () => {
    await expect(run([{ type: 'text-delta', text: 'Hel' }])).rejects.toSatisfy((error) =>
      IncompleteAttemptError.isInstance(error),
    );
  });
});
