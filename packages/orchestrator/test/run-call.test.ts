import { readdir } from 'node:fs/promises';
import type { TurnEvent } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

// Stateless calls (`runCall`): a client's whole conversation through a turn's decisions.

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const conversation = {
  system: 'Be brief.',
  messages: [
    { role: 'user' as const, content: 'What is 2 + 2?' },
    { role: 'assistant' as const, content: '4.' },
    { role: 'user' as const, content: 'And 3 + 3?' },
  ],
};

describe('runCall', () => {
  it("sends the client's conversation as it is, answers once, and stores nothing", async () => {
    harness = await createHarness({
      script: [
        {
          behavior: { type: 'ok', text: '6.', usage: { inputTokens: 21, outputTokens: 2 } },
          match: primary,
        },
      ],
    });
    const events: TurnEvent[] = [];
    const outcome = await harness.orchestrator.runCall({
      request: conversation,
      callId: 'call-1',
      onEvent: (event) => events.push(event),
    });
    expect(outcome).toMatchObject({
      kind: 'reply',
      text: '6.',
      content: [{ type: 'text', text: '6.' }],
      finish: 'stop',
      callId: 'call-1',
      model: 'anthropic/primary',
      usage: { inputTokens: 21, outputTokens: 2 },
    });
    const sent = harness.mock.requests[0];
    expect(sent?.system).toBe('Be brief.');
    expect(sent?.messages).toEqual([
      { role: 'user', content: 'What is 2 + 2?' },
      { role: 'assistant', content: '4.' },
      { role: 'user', content: 'And 3 + 3?' },
    ]);
    expect(await readdir(harness.sessionsDir)).toEqual([]);
    expect(events.map((event) => [event.type, event.sessionId])).toEqual(
      expect.arrayContaining([
        ['turn-start', 'call-1'],
        ['turn-end', 'call-1'],
      ]),
    );
    expect(events.filter((event) => event.type === 'turn-end')).toHaveLength(1);
  });

  it('rotates and falls back like a turn, with truthful decisions', async () => {
    harness = await createHarness({
      script: [1, 2].map(() => ({ behavior: mockFaults.overloaded(), match: primary })),
    });
    const outcome = await harness.orchestrator.runCall({ request: conversation });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(harness.sent().map((request) => request.apiKey)).toEqual([
      'key-anthropic-k1',
      'key-anthropic-k2',
      'key-backup-b1',
    ]);
    expect(outcome.attempts.map((attempt) => attempt.decision)).toEqual([
      'rotate_profile',
      'fallback_model',
      undefined,
    ]);
  });

  it("offers the client's tools (not the orchestrator's) and hands tool calls back unrun", async () => {
    let ran = 0;
    harness = await createHarness({
      tools: {
        definitions: [{ name: 'server_side', inputSchema: { type: 'object' } }],
        async run() {
          ran += 1;
          return { content: 'never' };
        },
      },
      script: [
        {
          behavior: { type: 'ok', toolCalls: [{ name: 'get_weather', input: { city: 'Oslo' } }] },
          match: primary,
        },
      ],
    });
    const outcome = await harness.orchestrator.runCall({
      request: {
        ...conversation,
        tools: [{ name: 'get_weather', inputSchema: { type: 'object' } }],
      },
    });
    expect(outcome.kind).toBe('reply');
    expect(outcome.finish).toBe('tool-calls');
    expect(outcome.content).toEqual([
      { type: 'tool_use', id: expect.any(String), name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(ran).toBe(0);
    const body = harness.mock.requests[0]?.body as { tools?: Array<{ name: string }> } | undefined;
    expect(body?.tools?.map((tool) => tool.name)).toEqual(['get_weather']);
    expect(harness.sent()).toHaveLength(1);
  });

  it('follows the route it is given, and refuses one naming an unconfigured provider', async () => {
    harness = await createHarness();
    const outcome = await harness.orchestrator.runCall({
      request: conversation,
      route: { primary: 'backup/fallback', fallbacks: [] },
    });
    expect(outcome.model).toBe('backup/fallback');
    expect(harness.sent().map((request) => request.model)).toEqual(['fallback']);
    await expect(
      harness.orchestrator.runCall({ request: conversation, route: { primary: 'nowhere/x' } }),
    ).rejects.toMatchObject({ name: 'OrchestratorConfigError' });
  });

  it('a route is built once per config, yet a changed route or a changed config is seen', async () => {
    harness = await createHarness({
      script: [1, 2, 3, 4].map(() => ({ behavior: mockFaults.overloaded(), match: primary })),
    });
    // The same route object, its fallbacks changed between calls: the second call follows them.
    const route: { primary: string; fallbacks: string[] } = {
      primary: 'anthropic/primary',
      fallbacks: [],
    };
    const first = await harness.orchestrator.runCall({ request: conversation, route });
    expect(first.kind).toBe('error');
    route.fallbacks = ['backup/fallback'];
    const second = await harness.orchestrator.runCall({ request: conversation, route });
    expect(second.model).toBe('backup/fallback');
    const routed = await harness.orchestrator.runCall({
      request: conversation,
      route: { primary: 'backup/fallback', fallbacks: [] },
    });
    expect(routed.model).toBe('backup/fallback');
    await harness.close();
    // A new config without the `backup` provider: the same route is refused there.
    harness = await createHarness({
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      models: { primary: 'anthropic/primary' },
    });
    await expect(
      harness.orchestrator.runCall({
        request: conversation,
        route: { primary: 'backup/fallback', fallbacks: [] },
      }),
    ).rejects.toMatchObject({ name: 'OrchestratorConfigError' });
    const answered = await harness.orchestrator.runCall({ request: conversation });
    expect(answered.model).toBe('anthropic/primary');
  });

  it('a context overflow falls over to a larger declared window (nothing to compact)', async () => {
    harness = await createHarness({
      models: {
        primary: 'anthropic/primary',
        fallbacks: ['backup/fallback'],
        settings: {
          'anthropic/primary': { contextWindowTokens: 8_000 },
          'backup/fallback': { contextWindowTokens: 200_000 },
        },
      },
      script: [{ behavior: mockFaults.promptTooLong(), match: primary }],
    });
    const outcome = await harness.orchestrator.runCall({ request: conversation });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(harness.sent().map((request) => request.model)).toEqual(['primary', 'fallback']);
  });

  it('a final error names its kind; the model port is never asked twice for a 400', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'http-error', status: 400, message: 'bad' }, match: primary }],
    });
    const outcome = await harness.orchestrator.runCall({ request: conversation });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'invalid_request', content: [] });
    expect(outcome.text).not.toContain('bad');
    expect(harness.sent()).toHaveLength(1);
  });

  it('a caller that stops the call between attempts (a live stream already broken) gets no further request', async () => {
    harness = await createHarness({
      script: [{ behavior: { type: 'reset-after-chunks', chunks: 2 }, match: primary }],
    });
    const controller = new AbortController();
    const outcome = await harness.orchestrator.runCall({
      request: conversation,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'discard') controller.abort();
      },
    });
    expect(outcome).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });
    expect(harness.sent()).toHaveLength(1);
    expect(outcome.attempts.map((attempt) => [attempt.requestSent, attempt.decision])).toEqual([
      [true, 'final'],
    ]);
  });

  it('the caller stopping a call ends it aborted; shutdown stops a call still running', async () => {
    harness = await createHarness({
      script: [1, 2].map(() => ({ behavior: { type: 'hang' as const }, match: primary })),
    });
    const controller = new AbortController();
    const stopped = harness.orchestrator.runCall({
      request: conversation,
      signal: controller.signal,
    });
    await harness.mock.waitForRequests(1);
    controller.abort();
    expect(await stopped).toMatchObject({ kind: 'aborted', errorKind: 'caller_abort' });

    const running = harness.orchestrator.runCall({ request: conversation });
    await harness.mock.waitForRequests(2);
    await harness.orchestrator.shutdown({ graceMs: 0 });
    expect(await running).toMatchObject({ kind: 'aborted' });
    await expect(harness.orchestrator.runCall({ request: conversation })).rejects.toMatchObject({
      name: 'OrchestratorError',
    });
  });
});
