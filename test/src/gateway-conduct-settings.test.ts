// The settings of issue 18 take effect through the built gateway: a model's own first-token and
// stall timeouts (far below the turn-wide 60 s), and the `health` section (how many failures
// open a breaker, how long it stays open, a `retry-after` beyond `retry.maxWaitMs`), with the
// in-process health and with the PostgreSQL one.
import { useTestDatabase } from '@keel/postgres-test-server';
import { createMockProvider, type MockProvider, mockFaults } from '@keel/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  sendMessage,
  startGateway,
} from './support/gateway-process';

const database = useTestDatabase();
let mock: MockProvider;
let gateway: GatewayProcess;

const COOLDOWN_MS = 45_000;

/** One gateway over the mock; its sessions and provider health in files or in PostgreSQL. */
function startSettingsGateway(storage: 'file' | 'postgres'): Promise<GatewayProcess> {
  return startGateway({
    config: {
      sessionsDir: 'sessions',
      ...(storage === 'postgres' ? { storage: { kind: 'postgres', url: database.url } } : {}),
      providers: [
        {
          id: 'cs-a',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-settings-a' }],
        },
        {
          id: 'cs-o',
          api: 'openai-chat',
          baseUrl: mock.openaiBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-keeltest-settings-o' }],
        },
      ],
      models: {
        primary: 'cs-a/silent',
        fallbacks: ['cs-o/backup'],
        settings: {
          'cs-a/silent': { firstTokenTimeoutMs: 500 },
          'cs-a/stalls': { stallTimeoutMs: 500 },
          'cs-a/breaks': {},
          'cs-a/long-wait': {},
        },
      },
      turn: { firstTokenTimeoutMs: 60_000, stallTimeoutMs: 60_000 },
      retry: { maxRetries: 0, maxWaitMs: 5_000 },
      health: {
        minFailures: 2,
        failureRatio: 0.5,
        cooldownMs: COOLDOWN_MS,
        maxCooldownMs: COOLDOWN_MS,
      },
    },
  });
}

beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await mock?.close();
});

// Each test scripts its own answers and counts its own requests.
beforeEach(() => mock.reset());

/** Requests the mock received, by model, in order. */
const requested = () => mock.requests.map((request) => request.model);

async function select(sessionId: string, model: string): Promise<void> {
  const response = await gateway.fetch(`/v1/sessions/${sessionId}/model`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model }),
  });
  expect(response.status).toBe(200);
}

/** The attempt errors of a session, as the events API serves them. */
async function attemptErrors(sessionId: string): Promise<Array<Record<string, unknown>>> {
  const { events } = (await (await gateway.fetch(`/v1/sessions/${sessionId}/events`)).json()) as {
    events: Array<Record<string, unknown>>;
  };
  return events.filter((event) => event['type'] === 'attempt-error');
}

type Breaker = { providerId: string; model: string; state: string; openUntil?: number };
async function breaker(model: string): Promise<Breaker | undefined> {
  const { breakers } = (await (await gateway.fetch('/v1/providers/health')).json()) as {
    breakers: Breaker[];
  };
  return breakers.find((entry) => entry.providerId === 'cs-a' && entry.model === model);
}

describe("a model's own timeouts", () => {
  beforeAll(async () => {
    gateway = await startSettingsGateway('file');
  });
  afterAll(async () => {
    await gateway?.stop();
    if (gateway !== undefined) await removeDir(gateway.dir);
  });

  // Each test's own limit is far below the turn-wide 60 s: only the model's setting can pass it.
  it('firstTokenTimeoutMs: a silent primary falls over after its 500 ms, not the turn-wide 60 s', {
    timeout: 30_000,
  }, async () => {
    mock.enqueue(
      { behavior: { type: 'hang' }, match: { model: 'silent' } },
      { behavior: { type: 'ok', text: 'from the backup' }, match: { model: 'backup' } },
    );
    const answer = await sendMessage(gateway, 'cs-silent', { text: 'hello' });
    expect(answer.body).toMatchObject({ outcome: 'reply', model: 'cs-o/backup' });
    const errors = await attemptErrors('cs-silent');
    expect(
      errors.map((event) => [event['kind'], (event['target'] as { model: string }).model]),
    ).toEqual([['timeout', 'silent']]);
  });

  it('stallTimeoutMs: a stream that goes silent is abandoned after its 500 ms', {
    timeout: 30_000,
  }, async () => {
    await select('cs-stalls', 'cs-a/stalls');
    mock.enqueue(
      { behavior: { type: 'stall', afterChunks: 1 }, match: { model: 'stalls' } },
      { behavior: { type: 'ok', text: 'answered' }, match: { model: 'silent' } },
    );
    const answer = await sendMessage(gateway, 'cs-stalls', { text: 'hello' });
    expect(answer.body).toMatchObject({ outcome: 'reply', text: 'answered', model: 'cs-a/silent' });
    const errors = await attemptErrors('cs-stalls');
    expect(
      errors.map((event) => [event['kind'], (event['target'] as { model: string }).model]),
    ).toEqual([['timeout', 'stalls']]);
  });
});

describe.each(['file', 'postgres'] as const)('health (%s storage)', (storage) => {
  beforeAll(async () => {
    gateway = await startSettingsGateway(storage);
  });
  afterAll(async () => {
    await gateway?.stop();
    if (gateway !== undefined) await removeDir(gateway.dir);
  });

  it('minFailures and cooldownMs: the second failure opens the breaker, for the configured time', async () => {
    await select('cs-breaks', 'cs-a/breaks');
    mock.enqueue(
      { behavior: mockFaults.serverError(500), match: { model: 'breaks' } },
      { behavior: { type: 'ok', text: 'one' }, match: { model: 'silent' } },
      { behavior: mockFaults.serverError(500), match: { model: 'breaks' } },
      { behavior: { type: 'ok', text: 'two' }, match: { model: 'silent' } },
    );
    expect((await sendMessage(gateway, 'cs-breaks', { text: 'first' })).body).toMatchObject({
      outcome: 'reply',
      text: 'one',
    });
    expect((await breaker('breaks'))?.state ?? 'closed').toBe('closed');
    expect((await sendMessage(gateway, 'cs-breaks', { text: 'second' })).body).toMatchObject({
      outcome: 'reply',
      text: 'two',
    });
    const open = await breaker('breaks');
    expect(open?.state).toBe('open');
    const left = (open?.openUntil ?? 0) - Date.now();
    expect(left).toBeGreaterThan(COOLDOWN_MS - 20_000);
    expect(left).toBeLessThanOrEqual(COOLDOWN_MS);
    expect(requested()).toEqual(['breaks', 'silent', 'breaks', 'silent']);
  });

  it('an overload whose retry-after is longer than retry.maxWaitMs opens the breaker on one request', async () => {
    await select('cs-long-wait', 'cs-a/long-wait');
    mock.enqueue(
      {
        // 7 s: beyond this gateway's retry.maxWaitMs (5 s), within the default (10 s).
        behavior: { ...mockFaults.overloaded(), headers: { 'retry-after': '7' } },
        match: { model: 'long-wait' },
      },
      { behavior: { type: 'ok', text: 'elsewhere' }, match: { model: 'silent' } },
    );
    expect((await sendMessage(gateway, 'cs-long-wait', { text: 'hello' })).body).toMatchObject({
      outcome: 'reply',
      text: 'elsewhere',
    });
    expect((await breaker('long-wait'))?.state).toBe('open');
    expect(requested()).toEqual(['long-wait', 'silent']);
  });
});
