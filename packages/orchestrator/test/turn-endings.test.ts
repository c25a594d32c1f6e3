import type { TranscriptEntry, TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { foreignMessage } from './foreign-message';
import { createHarness, type Harness, userTexts } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const providers = [
  { id: 'anthropic', profiles: [{ id: 'k1' }] },
  { id: 'backup', profiles: [{ id: 'b1' }] },
];
const withOther = { primary: 'anthropic/primary', settings: { 'backup/other': {} } };

let foreignCount = 0;
function foreignEntry(): TranscriptEntry {
  foreignCount += 1;
  return foreignMessage(`foreign-${foreignCount}`);
}

const turnEnds = (h: Harness) => h.events.filter((event) => event.type === 'turn-end');

describe('a pending model switch never outranks a takeover, a stop or a busy session', () => {
  it('a switch and a foreign write during one model call: resend after 1 request, no switch_model', async () => {
    harness = await createHarness({
      providers,
      models: withOther,
      beforeStreamEnds: async () => {
        await harness!.orchestrator.selectModel('s1', 'backup/other');
        await harness!.storage.append('s1', [foreignEntry()]);
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({ kind: 'resend', errorKind: 'session_takeover' });
    expect(harness.sent().map((request) => request.model)).toEqual(['primary']);
    expect(harness.decisions()).toEqual(['resend']);
    expect(outcome.attempts.map((attempt) => attempt.decision)).toEqual(['resend']);
    expect(outcome.staleReply).toContain('hello');
  });

  it('a switch and the caller’s stop during one model call: aborted after 1 request, no switch_model', async () => {
    harness = await createHarness({
      providers,
      models: withOther,
      script: [{ behavior: { type: 'stall', afterChunks: 1 }, match: primary }],
    });
    const controller = new AbortController();
    const off = harness.orchestrator.subscribe((event) => {
      if (event.type !== 'model-event') return;
      off();
      void harness!.orchestrator.selectModel('s1', 'backup/other').then(() => controller.abort());
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      signal: controller.signal,
    });
    expect(outcome).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });
    expect(harness.sent().map((request) => request.model)).toEqual(['primary']);
    expect(harness.decisions()).not.toContain('switch_model');
  });
});

describe('turnTimeoutMs is the turn’s whole deadline', () => {
  it('a model that never answers: the turn ends error (timeout) with the deadline copy, nothing retried', {
    timeout: 30_000,
  }, async () => {
    harness = await createHarness({
      overrides: {
        // Long enough for a loaded machine to send the request; far below every call limit.
        turnTimeoutMs: 4_000,
        callTimeouts: { timeoutMs: 600_000, firstTokenTimeoutMs: 600_000, stallTimeoutMs: 600_000 },
      },
      script: [{ behavior: { type: 'hang' }, match: primary }],
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome).toMatchObject({
      kind: 'error',
      errorKind: 'timeout',
      text: 'Answering took too long, so I stopped. Please try again.',
    });
    expect(harness.sent().length).toBeLessThanOrEqual(1);
    expect(outcome.attempts.length).toBeLessThanOrEqual(1);
    expect(turnEnds(harness)).toHaveLength(1);
    // The session was let go: the next turn answers.
    const next = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'again' });
    expect(next.kind).toBe('reply');
  });
});

describe('caller_abort: no retry, no fallback, whenever the stop comes', () => {
  it('a stop during the backoff before a retry: aborted, nothing more sent, the failed attempt says final', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'http-error', status: 500 }, match: primary }],
    });
    const controller = new AbortController();
    const off = harness.orchestrator.subscribe((event) => {
      if (event.type === 'decision' && event.label === 'retry_same') controller.abort();
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      signal: controller.signal,
    });
    off();
    expect(outcome).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });
    expect(harness.sent()).toHaveLength(1);
    expect(outcome.attempts.map((attempt) => attempt.decision)).toEqual(['final']);
    expect(turnEnds(harness)).toHaveLength(1);
  });

  it('a signal already aborted: aborted, zero requests, one turn-end, the session free for the next turn', async () => {
    harness = await createHarness();
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'hello',
      signal: AbortSignal.abort(),
    });
    expect(outcome).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });
    expect(harness.sent()).toEqual([]);
    expect(turnEnds(harness)).toHaveLength(1);
    expect((await harness.orchestrator.runTurn({ sessionId: 's1', input: 'again' })).kind).toBe(
      'reply',
    );
  });

  it('a stop while a tool runs: aborted, the model not asked again, no orphaned tool call left behind', async () => {
    const controller = new AbortController();
    harness = await createHarness({
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        async run() {
          controller.abort();
          return { content: 'late' };
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runTurn({
      sessionId: 's1',
      input: 'look',
      signal: controller.signal,
    });
    expect(outcome.kind).toBe('aborted');
    expect(harness.sent()).toHaveLength(1);
    // The next turn repairs what the stop left and sends a paired request.
    const next = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'again' });
    expect(next.kind).toBe('reply');
    expect(harness.refused()).toEqual([]);
  });
});

describe('staleReply keeps what the taken-over attempt produced, and only that', () => {
  it('a takeover on the second step (after a tool step): the stale reply is that step’s text alone', async () => {
    let calls = 0;
    harness = await createHarness({
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        async run() {
          return { content: 'found' };
        },
      },
      script: [
        {
          behavior: {
            type: 'ok',
            text: 'Looking it up.',
            toolCalls: [{ id: 't1', name: 'lookup', input: {} }],
          },
          match: primary,
        },
        { behavior: { type: 'ok', text: 'The answer is 42.' }, match: primary },
      ],
      beforeStreamEnds: async () => {
        calls += 1;
        if (calls === 2) await harness!.storage.append('s1', [foreignEntry()]);
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'look' });
    expect(outcome).toMatchObject({ kind: 'resend', staleReply: 'The answer is 42.' });
    expect(harness.sent()).toHaveLength(2);
  });

  it('a takeover of an attempt that produced no text: no staleReply at all', async () => {
    harness = await createHarness({
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        async run() {
          return { content: 'found' };
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: primary,
        },
      ],
      beforeStreamEnds: async () => {
        await harness!.storage.append('s1', [foreignEntry()]);
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'look' });
    expect(outcome.kind).toBe('resend');
    expect(outcome).not.toHaveProperty('staleReply');
    expect(harness.sent()).toHaveLength(1);
  });
});

describe('followup: a message arriving mid-turn is an owned write through the running turn’s fence', () => {
  it('arriving while a tool runs (fence held): written at once, the running turn replies, the next turn answers it', async () => {
    let second: Promise<TurnOutcome> | undefined;
    harness = await createHarness({
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        async run() {
          second = harness!.orchestrator.runTurn({ sessionId: 's1', input: 'second' });
          await new Promise<void>((resolve) => {
            const off = harness!.orchestrator.subscribe((event) => {
              if (event.type !== 'message-queued') return;
              off();
              resolve();
            });
          });
          return { content: 'found' };
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ id: 't1', name: 'lookup', input: {} }] },
          match: primary,
        },
      ],
    });
    const first = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    expect(first.kind).toBe('reply');
    expect(first.attempts.every((attempt) => attempt.outcome === 'ok')).toBe(true);
    const queued = harness.events.find((event) => event.type === 'message-queued');
    expect(queued?.turnId).toBe(first.turnId);
    const next = await second!;
    expect(next.kind).toBe('reply');
    expect(next.text).toContain('second');
    expect(harness.sent()).toHaveLength(3);
    expect(userTexts(await harness.entries('s1'))).toEqual(['first', 'second']);
    expect(harness.refused()).toEqual([]);
  });
});
