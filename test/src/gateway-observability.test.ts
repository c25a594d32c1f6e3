import { createMockProvider, type MockBehavior, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';
import { scrapeMetrics } from './support/scrape-metrics';
import { readSse } from './support/sse-events';

/** The six headings every summary must carry, so a scripted summary passes validation. */
const SUMMARY = ['Goal', 'Constraints', 'Decisions', 'Progress', 'Open items', 'Exact identifiers']
  .map((section) => `## ${section}\nNothing special.`)
  .join('\n\n');

let mock: MockProvider;
/** A second provider whose stalled answer ends only when it is closed: a turn held open. */
let stallMock: MockProvider;
let gateway: GatewayProcess;

beforeAll(async () => {
  mock = await createMockProvider();
  stallMock = await createMockProvider();
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'ob-a',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-obs-a' }],
        },
        {
          id: 'ob-o',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-obs-o' }],
        },
        {
          id: 'ob-s',
          api: 'anthropic-messages',
          baseUrl: stallMock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-obs-s' }],
        },
      ],
      models: {
        primary: 'ob-a/obs-a',
        fallbacks: ['ob-o/obs-o'],
        settings: { 'ob-s/obs-s': {} },
      },
      retry: { maxRetries: 0 },
      compaction: { keepRecentTokens: 1 },
    },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await mock?.close();
  await stallMock?.close();
  if (gateway !== undefined) await removeDir(gateway.dir);
});

function script(model: string, ...behaviors: MockBehavior[]): void {
  mock.enqueue(...behaviors.map((behavior) => ({ behavior, match: { model } })));
}

const scrape = () => scrapeMetrics(gateway);

const turnIds: string[] = [];

describe('metrics move as turns happen', () => {
  let before: Map<string, number>;
  let after: Map<string, number>;
  const delta = (series: string) => (after.get(series) ?? 0) - (before.get(series) ?? 0);

  beforeAll(async () => {
    before = await scrape();
    // 1: a reply. 2: an overload with a retry-after longer than retry.maxWaitMs (the breaker
    // opens at once), a fallback, a reply. 3: the open breaker skips the primary (a skipped
    // attempt, itself a fallback_model decision); the fallback refuses (400): an error.
    script(
      'obs-a',
      { type: 'ok', text: 'one' },
      { type: 'http-error', status: 529, headers: { 'retry-after': '30' } },
    );
    script('obs-o', { type: 'ok', text: 'two' }, { type: 'http-error', status: 400 });
    const outcomes = [];
    for (const text of ['first', 'second', 'third']) {
      const answer = await sendMessage(gateway, 'obs', { text });
      outcomes.push(answer.body['outcome']);
      turnIds.push(String(answer.body['turnId']));
    }
    expect(outcomes).toEqual(['reply', 'reply', 'error']);
    // A manual compaction, summarized by the primary model.
    script('obs-a', { type: 'ok', text: SUMMARY });
    const compacted = await gateway.fetch('/v1/sessions/obs/compact', { method: 'POST' });
    expect(await compacted.json()).toMatchObject({ compacted: true });
    expect(mock.pending()).toBe(0);
    after = await scrape();
  });

  it('keel_turns_total by outcome', () => {
    expect(delta('keel_turns_total{outcome="reply",api="sessions"}')).toBe(2);
    expect(delta('keel_turns_total{outcome="error",api="sessions"}')).toBe(1);
  });

  it('keel_attempts_total by provider, model and result', () => {
    expect(
      delta('keel_attempts_total{provider="ob-a",model="obs-a",result="ok",api="sessions"}'),
    ).toBe(1);
    expect(
      delta(
        'keel_attempts_total{provider="ob-a",model="obs-a",result="overloaded",api="sessions"}',
      ),
    ).toBe(1);
    expect(
      delta('keel_attempts_total{provider="ob-a",model="obs-a",result="skipped",api="sessions"}'),
    ).toBe(1);
    expect(
      delta('keel_attempts_total{provider="ob-o",model="obs-o",result="ok",api="sessions"}'),
    ).toBe(1);
    expect(
      delta(
        'keel_attempts_total{provider="ob-o",model="obs-o",result="invalid_request",api="sessions"}',
      ),
    ).toBe(1);
  });

  it('keel_decisions_total by label', () => {
    expect(delta('keel_decisions_total{label="fallback_model"}')).toBe(2);
    expect(delta('keel_decisions_total{label="final"}')).toBe(1);
  });

  it('keel_provider_latency_seconds for the attempts that sent a request', () => {
    expect(delta('keel_provider_latency_seconds_count{provider="ob-a",model="obs-a"}')).toBe(2);
    expect(delta('keel_provider_latency_seconds_count{provider="ob-o",model="obs-o"}')).toBe(2);
    expect(
      delta('keel_provider_latency_seconds_sum{provider="ob-a",model="obs-a"}'),
    ).toBeGreaterThan(0);
  });

  it('keel_breaker_state: 2 (open) for the overloaded model', () => {
    expect(after.get('keel_breaker_state{provider="ob-a",model="obs-a"}')).toBe(2);
  });

  it('keel_compactions_total by outcome and trigger', () => {
    expect(delta('keel_compactions_total{outcome="compacted",trigger="manual"}')).toBe(1);
  });
});

describe('keel_queue_depth', () => {
  it('counts the message waiting behind a running turn, and drops back to 0', async () => {
    const switched = await gateway.fetch('/v1/sessions/obs-q/model', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'ob-s/obs-s' }),
    });
    expect(switched.status).toBe(200);
    const controller = new AbortController();
    const events = readSse(
      await gateway.fetch('/v1/sessions/obs-q/events?follow=1', { signal: controller.signal }),
      controller,
    );
    stallMock.enqueue({ type: 'stall', afterChunks: 1 });
    const running = sendMessage(gateway, 'obs-q', { text: 'held open' });
    await stallMock.waitForRequests(1);
    expect((await scrape()).get('keel_running_turns')).toBe(1);
    const queued = sendMessage(gateway, 'obs-q', { text: 'waits behind it' });
    await events.next((event) => (event.data as { type?: string }).type === 'message-queued');
    expect((await scrape()).get('keel_queue_depth')).toBe(1);

    await stallMock.close(); // the stalled answer ends; both turns finish (on the fallback)
    const answers = await Promise.all([running, queued]);
    for (const answer of answers) turnIds.push(String(answer.body['turnId']));
    const settled = await scrape();
    expect(settled.get('keel_queue_depth')).toBe(0);
    expect(settled.get('keel_running_turns')).toBe(0);
    events.close();
  });
});

describe('structured logs', () => {
  const TURN_LINES = [
    'turn started',
    'attempt failed',
    'decision',
    'provider health changed',
    'compaction ended',
    'turn ended',
  ];

  it('are JSON lines, with a turn id on every line about a turn', async ({ onTestFailed }) => {
    // A wait below that never ends fails on the test's timeout: name each turn's story then too.
    onTestFailed(() => {
      for (const turnId of turnIds) {
        const story = gateway.logs.filter((line) => line['turnId'] === turnId);
        console.error(
          `turn ${turnId}'s log lines: ${story.map((line) => line['msg']).join(' → ')}`,
        );
      }
    });
    // pino writes stdout asynchronously (sonic-boom, fs.write on libuv's thread pool, behind the
    // session files' fsyncs), so a turn's last lines may reach us after its HTTP answer: wait for
    // every turn's end line before reading the output.
    for (const turnId of turnIds) {
      await gateway.waitForLog((line) => line['turnId'] === turnId && line['msg'] === 'turn ended');
    }
    const lines = gateway
      .output()
      .split('\n')
      .filter((line) => line !== '');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const line of parsed) {
      expect(line).toMatchObject({
        level: expect.any(Number),
        time: expect.any(Number),
        msg: expect.any(String),
        service: 'keel-gateway',
      });
    }
    const turnLines = parsed.filter((line) => TURN_LINES.includes(String(line['msg'])));
    expect(turnLines.length).toBeGreaterThan(10);
    for (const line of turnLines) {
      expect({ msg: line['msg'], known: turnIds.includes(String(line['turnId'])) }).toEqual({
        msg: line['msg'],
        known: true,
      });
    }
    for (const turnId of turnIds) {
      const own = parsed.filter((line) => line['turnId'] === turnId);
      const story = own.map((line) => line['msg']);
      // A failure names the turn and prints its whole story, line by line.
      const told = `turn ${turnId}'s log lines:\n${own.map((line) => JSON.stringify(line)).join('\n')}`;
      expect(story[0], told).toBe('turn started');
      expect(story.at(-1), told).toBe('turn ended');
    }
    // The overload, the fallback and the refusal are each told.
    const turn2 = parsed.filter((line) => line['turnId'] === turnIds[1]);
    expect(turn2.find((line) => line['msg'] === 'attempt failed')).toMatchObject({
      kind: 'overloaded',
      provider: 'ob-a',
      model: 'obs-a',
      status: 529,
    });
    expect(turn2.find((line) => line['msg'] === 'decision')).toMatchObject({
      label: 'fallback_model',
    });
  });

  it('leave no Node or Fastify warning behind', () => {
    expect(gateway.output()).not.toMatch(/Deprecation|Warning|FSTDEP|FSTWRN/);
  });
});
