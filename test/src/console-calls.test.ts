// Issue 19's "Observability and console": a call to each compatible endpoint, each falling over
// from its primary to a fallback, seen in a real browser as a turn of its own — the calls list
// (wire, route, the model that answered, outcome, usage, decisions) and the call's timeline with
// the failed attempt and its decision — and counted in the metrics by API.
import Anthropic from '@anthropic-ai/sdk';
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleBrowser, launchConsoleBrowser } from './support/console-browser';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

const SLOW = { timeout: 180_000 };

let mock: MockProvider;
let gateway: GatewayProcess;
let browser: ConsoleBrowser;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'cc-a',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-cc-a' }],
        },
        {
          id: 'cc-o',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-cc-o' }],
        },
      ],
      models: { primary: 'cc-a/calls-default' },
      routes: {
        'calls-openai': { primary: 'cc-a/calls-primary-1', fallbacks: ['cc-o/calls-backup'] },
        'calls-anthropic': { primary: 'cc-o/calls-primary-2', fallbacks: ['cc-a/calls-backup'] },
      },
      retry: { maxRetries: 0 },
    },
  });
  browser = await launchConsoleBrowser();

  // The OpenAI wire, streamed: the Anthropic-wire primary is overloaded, the fallback answers.
  mock.enqueue(
    { behavior: mockFaults.overloaded(), match: { model: 'calls-primary-1' } },
    {
      behavior: {
        type: 'ok',
        text: 'From the backup.',
        usage: { inputTokens: 21, outputTokens: 4 },
      },
      match: { model: 'calls-backup' },
    },
  );
  const openai = new OpenAI({ apiKey: 'unused', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const stream = await openai.chat.completions.create({
    model: 'calls-openai',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  expect(text).toBe('From the backup.');

  // The Anthropic wire, not streamed: the OpenAI-wire primary fails with a 500, the fallback answers.
  mock.enqueue(
    { behavior: { type: 'http-error', status: 500 }, match: { model: 'calls-primary-2' } },
    {
      behavior: { type: 'ok', text: 'Backup here.', usage: { inputTokens: 17, outputTokens: 3 } },
      match: { model: 'calls-backup' },
    },
  );
  const anthropic = new Anthropic({ apiKey: 'unused', baseURL: gateway.url, maxRetries: 0 });
  const message = await anthropic.messages.create({
    model: 'calls-anthropic',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'hi' }],
  });
  expect(message.model).toBe('cc-a/calls-backup');
  expect(mock.pending()).toBe(0);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await mock?.close();
  if (gateway !== undefined) await removeDir(gateway.dir);
}, 60_000);

async function open(hash: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${gateway.url}/console${hash}`);
  return page;
}

describe('compatible calls in the console (issue 19)', () => {
  it(
    'lists both calls with wire, route, the model that answered, outcome, usage and decisions',
    SLOW,
    async () => {
      const page = await open('#/calls');
      const expected = [
        { api: 'openai', route: 'calls-openai', model: 'cc-o/calls-backup', usage: '21 / 4' },
        { api: 'anthropic', route: 'calls-anthropic', model: 'cc-a/calls-backup', usage: '17 / 3' },
      ] as const;
      for (const call of expected) {
        const row = page.locator(`[data-calls] tr[data-api="${call.api}"]`);
        await row.waitFor();
        expect(await row.count()).toBe(1);
        expect(await row.locator('[data-call-route]').textContent()).toBe(call.route);
        expect(await row.locator('[data-call-model]').textContent()).toBe(call.model);
        expect(await row.locator('[data-outcome]').getAttribute('data-outcome')).toBe('reply');
        expect(await row.locator('[data-call-usage]').textContent()).toBe(call.usage);
        expect(
          await row
            .locator('[data-call-decisions] [data-decision]')
            .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-decision'))),
        ).toEqual(['fallback_model']);
      }
      await page.close();
    },
  );

  it(
    "opens each call's timeline: the failed primary, its fallback decision, the answer",
    SLOW,
    async () => {
      const timelines = [
        { api: 'openai', failed: 'calls-primary-1', error: 'overloaded', answered: 'calls-backup' },
        {
          api: 'anthropic',
          failed: 'calls-primary-2',
          error: 'server_error',
          answered: 'calls-backup',
        },
      ] as const;
      const { calls } = (await (await gateway.fetch('/v1/calls')).json()) as {
        calls: Array<{ callId: string; api: string }>;
      };
      for (const expected of timelines) {
        const callId = calls.find((call) => call.api === expected.api)?.callId ?? '';
        expect(callId).not.toBe('');
        const page = await open('#/calls');
        await page.locator(`[data-call-id="${callId}"] a`).click();
        await page.waitForSelector(`[data-call="${callId}"] [data-call-facts]`);
        expect(await page.locator('[data-call-facts] [data-call-api]').textContent()).toBe(
          expected.api,
        );
        const attempts = page.locator('[data-timeline] [data-attempt]');
        await page.locator('[data-timeline] [data-attempt-outcome="ok"]').waitFor();
        expect(await attempts.count()).toBe(2);
        const first = attempts.nth(0);
        expect(await first.getAttribute('data-model')).toBe(expected.failed);
        expect(await first.getAttribute('data-error-kind')).toBe(expected.error);
        expect(await first.locator('[data-decision]').getAttribute('data-decision')).toBe(
          'fallback_model',
        );
        expect(await attempts.nth(1).getAttribute('data-model')).toBe(expected.answered);
        await page.close();
      }
    },
  );

  it('keeps calls out of the sessions and counts them by api in the metrics', SLOW, async () => {
    const sessions = (await (await gateway.fetch('/v1/sessions')).json()) as {
      sessions: Array<{ sessionId: string }>;
    };
    expect(sessions.sessions).toEqual([]);
    const metrics = await (await gateway.fetch('/metrics')).text();
    expect(metrics).toContain('keel_turns_total{outcome="reply",api="openai"} 1');
    expect(metrics).toContain('keel_turns_total{outcome="reply",api="anthropic"} 1');
    expect(metrics).toContain(
      'keel_attempts_total{provider="cc-a",model="calls-primary-1",result="overloaded",api="openai"} 1',
    );
    expect(metrics).toContain(
      'keel_attempts_total{provider="cc-a",model="calls-backup",result="ok",api="anthropic"} 1',
    );
  });
});
