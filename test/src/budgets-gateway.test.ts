// Provider budgets in one built gateway (issue 24): past a model's rpm the compatible endpoints
// answer 429 with Retry-After in each client's wire (the upstream never sees the extra request),
// a profile with budget left takes over, and the budget shows in /v1/providers/health, the metric
// keel_budget_remaining and the config check.

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDir } from './support/gateway-process';
import { runCli } from './support/run-cli';
import { useGateways } from './support/use-gateways';

const group = useGateways();
let mock: MockProvider | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

function config(upstream: MockProvider, budgets: Record<string, unknown>) {
  return {
    sessionsDir: 'sessions',
    providers: [
      {
        id: 'co',
        api: 'openai-chat',
        baseUrl: upstream.openaiBaseUrl,
        profiles: [
          { id: 'main', apiKey: 'sk-budget-main' },
          { id: 'spare', apiKey: 'sk-budget-spare' },
        ],
      },
      {
        id: 'ca',
        api: 'anthropic-messages',
        baseUrl: upstream.anthropicBaseUrl,
        profiles: [{ id: 'main', apiKey: 'sk-budget-a' }],
      },
    ],
    models: { primary: 'co/budget-model' },
    routes: { claude: { primary: 'ca/budget-claude' } },
    retry: { maxRetries: 0, maxWaitMs: 0 },
    budgets,
  };
}

const chat = { model: 'default', messages: [{ role: 'user', content: 'hi' }] };
const post = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('a provider budget in one gateway', () => {
  it('past rpm: a profile with budget left takes over, then 429 with Retry-After, nothing sent upstream', async () => {
    mock = await createMockProvider();
    const gateway = await group.start({
      config: config(mock, {
        // burst = rpm: the window alone (paced by default, main would let one go every 30 s).
        limits: {
          'co/budget-model#main': { rpm: 2, burst: 2 },
          'co/budget-model#spare': { rpm: 1 },
        },
      }),
    });
    group.defer(() => removeDir(gateway.dir));
    const answers = [];
    for (let i = 0; i < 4; i += 1) {
      answers.push(await gateway.fetch('/v1/chat/completions', post(chat)));
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    // Two on main, then main is over budget and spare takes the third: rotation, not a 429.
    expect(mock.requests.map((request) => request.apiKey)).toEqual([
      'sk-budget-main',
      'sk-budget-main',
      'sk-budget-spare',
    ]);
    const limited = answers[3] as Response;
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(61);
    expect(await limited.json()).toMatchObject({
      error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
    });

    const health = (await (await gateway.fetch('/v1/providers/health')).json()) as {
      budgets: unknown[];
    };
    expect(health.budgets).toEqual([
      {
        providerId: 'co',
        profileId: 'main',
        model: 'budget-model',
        limits: { rpm: 2, burst: 2 },
        remaining: { rpm: 0 },
      },
      {
        providerId: 'co',
        profileId: 'spare',
        model: 'budget-model',
        limits: { rpm: 1 },
        remaining: { rpm: 0 },
      },
    ]);
    const metrics = await (await gateway.fetch('/metrics')).text();
    expect(metrics).toMatch(
      /^keel_budget_remaining\{provider="co",profile="main",model="budget-model",limit="rpm"\} 0$/m,
    );
    expect(await gateway.stop()).toBe(0);
  });

  it('a budget named by model alone holds its profile; the Anthropic wire gets its own 429 shape', async () => {
    mock = await createMockProvider();
    const gateway = await group.start({
      config: config(mock, { limits: { 'ca/budget-claude': { rpm: 1, tpm: 100_000 } } }),
    });
    group.defer(() => removeDir(gateway.dir));
    const ask = { model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
    const first = await gateway.fetch('/v1/messages', post(ask));
    expect(first.status).toBe(200);
    const second = await gateway.fetch('/v1/messages', post(ask));
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await second.json()).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error' },
    });
    expect(mock.requests).toHaveLength(1);
    // The reservation (request + max_tokens) was corrected with the usage the mock reported.
    const health = (await (await gateway.fetch('/v1/providers/health')).json()) as {
      budgets: Array<{ remaining: { tpm: number } }>;
    };
    const used = 100_000 - (health.budgets[0]?.remaining.tpm ?? 0);
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThan(64);
    expect(await gateway.stop()).toBe(0);
  });

  it('burst paces rpm: past the burst, back to back is held until the pace allows the next', async () => {
    mock = await createMockProvider();
    const gateway = await group.start({
      config: config(mock, { limits: { 'co/budget-model#main': { rpm: 6, burst: 1 } } }),
    });
    group.defer(() => removeDir(gateway.dir));
    expect((await gateway.fetch('/v1/chat/completions', post(chat))).status).toBe(200);
    // The window has 5 left, but the pace lets one go every 10 s: the spare profile (no budget)
    // takes the next at once.
    expect((await gateway.fetch('/v1/chat/completions', post(chat))).status).toBe(200);
    expect(mock.requests.map((request) => request.apiKey)).toEqual([
      'sk-budget-main',
      'sk-budget-spare',
    ]);
    const health = (await (await gateway.fetch('/v1/providers/health')).json()) as {
      budgets: unknown[];
    };
    expect(health.budgets).toEqual([
      {
        providerId: 'co',
        profileId: 'main',
        model: 'budget-model',
        limits: { rpm: 6, burst: 1 },
        remaining: { rpm: 5 },
      },
    ]);
    expect(await gateway.stop()).toBe(0);
  });

  it('paced by default: 3 s worth of rpm back to back, and tpm paced by tokens', async () => {
    mock = await createMockProvider();
    const gateway = await group.start({
      // main: 40 rpm, by default 2 back to back then one every 1.5 s. spare: 200 tpm, by default
      // 10 tokens back to back then one every 300 ms; a larger request once the pace caught up.
      config: config(mock, {
        limits: { 'co/budget-model#main': { rpm: 40 }, 'co/budget-model#spare': { tpm: 200 } },
      }),
    });
    group.defer(() => removeDir(gateway.dir));
    const ask = { ...chat, max_tokens: 64 };
    const statuses = [];
    for (let i = 0; i < 4; i += 1) {
      statuses.push((await gateway.fetch('/v1/chat/completions', post(ask))).status);
    }
    // The fourth finds main's pace 1.5 s ahead and spare's token pace the tokens the third used
    // ahead (its window has room): held, and with no wait allowed, 429.
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(mock.requests.map((request) => request.apiKey)).toEqual([
      'sk-budget-main',
      'sk-budget-main',
      'sk-budget-spare',
    ]);
    const health = (await (await gateway.fetch('/v1/providers/health')).json()) as {
      budgets: Array<{ profileId: string; limits: unknown; remaining: Record<string, number> }>;
    };
    const [main, spare] = health.budgets;
    expect(main).toMatchObject({ profileId: 'main', limits: { rpm: 40 }, remaining: { rpm: 38 } });
    expect(spare).toMatchObject({ profileId: 'spare', limits: { tpm: 200 } });
    // The window alone would have let the fourth go: 64 + its size fit in what is left.
    expect(spare?.remaining['tpm']).toBeGreaterThan(200 - 64);
    expect(await gateway.stop()).toBe(0);
  });

  it('refuses a budget that names no provider or profile, or sets no limit', async () => {
    mock = await createMockProvider();
    const dir = await mkdtemp(join(tmpdir(), 'keel-budgets-'));
    group.defer(() => removeDir(dir));
    const path = join(dir, 'keel.config.json');
    await writeFile(
      path,
      JSON.stringify(
        config(mock, {
          limits: {
            'nope/m': { rpm: 1 },
            'co/m#ghost': { rpm: 1 },
            'co/empty': {},
            'co/zero': { rpm: 0 },
            'co/still': { rpm: 1, burst: 0 },
          },
        }),
      ),
    );
    const run = await runCli(['--config', path]);
    expect(run.code).toBe(1);
    for (const problem of [
      /budgets\.limits\.nope\/m: names provider "nope"/,
      /budgets\.limits\.co\/m#ghost: names profile "ghost"/,
      /budgets\.limits\.co\/empty: needs rpm, tpm or tpd/,
      /budgets\.limits\.co\/zero\.rpm: /,
      /budgets\.limits\.co\/still\.burst: /,
    ]) {
      expect(run.stderr).toMatch(problem);
    }
  });
});
