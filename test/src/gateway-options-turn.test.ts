// Gateway options of issue 23 that had no test showing they take effect through the built
// gateway: `turn.maxSteps`, `retry.baseDelayMs`, `retry.maxDelayMs`, `retry.maxWaits`,
// `turn.maxModelSwitches` and `queue.mode`.
// Each test's setting is far from its default, so only the setting can explain what it checks.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';

const GATE_TOOL_PLUGIN = fileURLToPath(new URL('./fixtures/gate-tool-plugin.mjs', import.meta.url));

let mock: MockProvider;
let gates: string;
let gateway: GatewayProcess | undefined;

beforeAll(async () => {
  mock = await createMockProvider();
  gates = await mkdtemp(join(tmpdir(), 'keel-gates-'));
});
afterAll(async () => {
  await mock?.close();
  await rm(gates, { recursive: true, force: true });
});
beforeEach(() => mock.reset());
afterEach(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  gateway = undefined;
});

/** A gateway on the mock: primary `go-a/main`, fallback `go-o/backup`, with `extra` over it. */
async function start(extra: Record<string, unknown>): Promise<GatewayProcess> {
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'go-a',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-options-a' }],
        },
        {
          id: 'go-o',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-options-o' }],
        },
      ],
      models: { primary: 'go-a/main', fallbacks: ['go-o/backup'] },
      ...extra,
    },
  });
  return gateway;
}

async function eventsOf(sessionId: string): Promise<Array<Record<string, unknown>>> {
  const response = await gateway!.fetch(`/v1/sessions/${sessionId}/events`);
  return ((await response.json()) as { events: Array<Record<string, unknown>> }).events;
}

describe('turn.maxSteps', () => {
  it('2: a model that calls a tool at every step is stopped after exactly 2 requests (default 16)', {
    timeout: 120_000,
  }, async () => {
    await start({ tools: ['current_time'], turn: { maxSteps: 2 } });
    const toolStep = {
      type: 'ok' as const,
      toolCalls: [{ name: 'current_time', input: {} }],
    };
    mock.enqueue(toolStep, toolStep, toolStep);
    const answer = await sendMessage(gateway!, 'steps', { text: 'what time is it?' });
    expect(answer.body).toMatchObject({ outcome: 'error' });
    expect(mock.requests).toHaveLength(2);
    expect(mock.pending()).toBe(1);
    const decisions = (await eventsOf('steps')).filter((event) => event['type'] === 'decision');
    expect(decisions.at(-1)).toMatchObject({ label: 'final', reason: 'step_cap' });
  });
});

describe('retry.baseDelayMs and retry.maxDelayMs', () => {
  // Equal jitter: retry n waits half to all of min(maxDelayMs, baseDelayMs × 2^(n−1)).
  it('base 10 ms, cap 25 ms: the first retry waits 5–10 ms (default base: 250–500), the fourth 13–25 ms (uncapped: 40–80)', {
    timeout: 120_000,
  }, async () => {
    // Four server errors would open the model's breaker (3 by default): it stays closed here.
    await start({
      retry: { maxRetries: 4, baseDelayMs: 10, maxDelayMs: 25 },
      health: { minFailures: 10 },
    });
    // Server errors without retry-after: the backoff settings alone decide the waits.
    const fault = { type: 'http-error' as const, status: 500 };
    mock.enqueue(fault, fault, fault, fault, { type: 'ok', text: 'fifth time' });
    const answer = await sendMessage(gateway!, 'backoff', { text: 'hello' });
    expect(answer.body).toMatchObject({ outcome: 'reply', model: 'go-a/main' });
    const waits = (await eventsOf('backoff'))
      .filter((event) => event['type'] === 'decision' && event['label'] === 'retry_same')
      .map((event) => event['delayMs'] as number);
    expect(waits).toHaveLength(4);
    expect(waits[0]).toBeGreaterThanOrEqual(5);
    expect(waits[0]).toBeLessThanOrEqual(10);
    expect(waits[3]).toBeGreaterThanOrEqual(12);
    expect(waits[3]).toBeLessThanOrEqual(25);
  });
});

describe('retry.maxWaits', () => {
  it('1: a key rate-limited on every request is waited for once, then the fallback answers (default 2: twice)', {
    timeout: 120_000,
  }, async () => {
    await start({ retry: { maxWaits: 1 } });
    mock.enqueue(
      {
        behavior: mockFaults.rateLimited({ retryAfterSeconds: 1 }),
        match: { model: 'main' },
        times: 5,
      },
      { behavior: { type: 'ok', text: 'from the backup' }, match: { model: 'backup' } },
    );
    const answer = await sendMessage(gateway!, 'waits', { text: 'hello' });
    expect(answer.body).toMatchObject({ outcome: 'reply', model: 'go-o/backup' });
    expect(mock.requests.map((request) => request.model)).toEqual(['main', 'main', 'backup']);
    const waits = (await eventsOf('waits')).filter(
      (event) => event['type'] === 'decision' && event['label'] === 'wait',
    );
    expect(waits).toHaveLength(1);
  });
});

describe('turn.maxModelSwitches', () => {
  it('0: a model selected while the turn runs ends it at the next step (default: the turn goes on, on it)', {
    timeout: 120_000,
  }, async () => {
    await start({
      turn: { maxModelSwitches: 0 },
      plugins: [{ module: GATE_TOOL_PLUGIN, options: { dir: gates } }],
    });
    mock.enqueue(
      { type: 'ok', toolCalls: [{ name: 'hold', input: { gate: 'switch' } }] },
      { type: 'ok', text: 'never asked for' },
    );
    const answer = sendMessage(gateway!, 'switch', { text: 'hold on' });
    await gateway!.waitForLog(
      (line) => line['msg'] === 'tool holding' && line['gate'] === 'switch',
    );
    const put = await gateway!.fetch('/v1/sessions/switch/model', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'go-o/backup' }),
    });
    expect(put.status).toBe(200);
    await writeFile(join(gates, 'switch'), '');
    expect((await answer).body).toMatchObject({ outcome: 'error' });
    expect(mock.requests.map((request) => request.model)).toEqual(['main']);
    const decisions = (await eventsOf('switch')).filter((event) => event['type'] === 'decision');
    expect(decisions.at(-1)).toMatchObject({ label: 'final', reason: 'switch_limit' });
  });
});

describe('queue.mode', () => {
  it('steer: a message arriving while a tool runs is folded into the running turn — two requests, one outcome for both (followup: a turn of its own)', {
    timeout: 120_000,
  }, async () => {
    await start({
      queue: { mode: 'steer' },
      plugins: [{ module: GATE_TOOL_PLUGIN, options: { dir: gates } }],
    });
    mock.enqueue(
      { type: 'ok', toolCalls: [{ name: 'hold', input: { gate: 'steer' } }] },
      { type: 'ok', text: 'both answered' },
      { type: 'ok', text: 'a turn of its own' },
    );
    const first = sendMessage(gateway!, 'steer', { text: 'look this up' });
    await gateway!.waitForLog((line) => line['msg'] === 'tool holding' && line['gate'] === 'steer');
    const second = sendMessage(gateway!, 'steer', { text: 'and mind the weather' });
    // The second message is written through the running turn before the gate opens.
    await expect
      .poll(async () => JSON.stringify(await eventsOf('steer')), { timeout: 30_000 })
      .toContain('"message-queued"');
    await writeFile(join(gates, 'steer'), '');
    const [one, two] = await Promise.all([first, second]);
    expect(one.body).toMatchObject({ outcome: 'reply', text: 'both answered' });
    expect(two.body).toMatchObject({ outcome: 'reply', text: 'both answered' });
    expect(mock.requests).toHaveLength(2);
    expect(JSON.stringify(mock.requests[1]!.messages)).toContain('and mind the weather');
    expect(mock.pending()).toBe(1);
  });
});
