import type { TurnEvent } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/config-schema';
import { priceBookOf } from '../observe/cost-of';
import { createKeyring } from './create-keyring';

/** A keyring on a clock the test moves: one key `app` with `limits`, a dollar per token. */
async function keyringWith(limits: Record<string, unknown>, start: string) {
  const config = configSchema.parse({
    server: { authToken: 'admin-token' },
    providers: [{ id: 'demo', api: 'demo' }],
    models: { primary: 'demo/m', settings: { 'demo/m': { prices: { input: 1e6, output: 1e6 } } } },
    keys: [{ id: 'app', secret: 'app-secret', ...limits }],
  });
  const clock = { now: Date.parse(start) };
  const keyring = await createKeyring({
    config,
    prices: priceBookOf(config.models.settings),
    now: () => clock.now,
    stateDir: false,
  });
  return { keyring, clock };
}

/** A call of `app` that ended having used `tokens` (all input) at a dollar each. */
function ended(tokens: number, sessionId = 's'): TurnEvent {
  return {
    type: 'turn-end',
    sessionId,
    outcome: {
      attempts: [
        {
          target: { providerId: 'demo', model: 'm' },
          usage: { inputTokens: tokens, outputTokens: 0 },
        },
      ],
    },
  } as unknown as TurnEvent;
}

describe('createKeyring', () => {
  it('tells the admin token, a key and a stranger apart', async () => {
    const { keyring } = await keyringWith({}, '2026-01-01T00:00:00Z');
    expect(keyring.identify('Bearer admin-token')).toEqual({
      keyId: undefined,
      admin: true,
      models: undefined,
    });
    expect(keyring.identify(undefined, 'app-secret')?.keyId).toBe('app');
    expect(keyring.identify('Bearer app-secretx')).toBeUndefined();
  });

  it('admits rpm requests in a sliding minute, then says how long until one fits', async () => {
    const { keyring, clock } = await keyringWith({ rpm: 2 }, '2026-01-01T00:00:00Z');
    expect(await keyring.admit('app', 0)).toMatchObject({ admitted: true });
    clock.now += 10_000;
    expect(await keyring.admit('app', 0)).toMatchObject({ admitted: true });
    const refused = await keyring.admit('app', 0);
    expect(refused).toMatchObject({ admitted: false, reason: 'rpm' });
    const wait = (refused as { retryAfterMs: number }).retryAfterMs;
    // The first admission leaves the minute 60 s after it, rounded up to the ledger's 1 s slices.
    expect(wait).toBeGreaterThanOrEqual(50_000);
    expect(wait).toBeLessThanOrEqual(51_000);
    clock.now += wait;
    expect(await keyring.admit('app', 0)).toMatchObject({ admitted: true });
    expect((await keyring.usage('app'))?.rejected.rpm).toBe(1);
  });

  it('reserves the estimate under tpm before a call and corrects it with the reported usage', async () => {
    const { keyring, clock } = await keyringWith({ tpm: 100 }, '2026-01-01T00:00:00Z');
    const first = await keyring.admit('app', 60);
    expect(first).toMatchObject({ admitted: true, ticket: { keyId: 'app' } });
    // Two estimates of 60 do not fit in 100 while the first call runs.
    expect(await keyring.admit('app', 60)).toMatchObject({ admitted: false, reason: 'tpm' });
    keyring.observe(ended(20), 'app', first.admitted ? first.ticket : undefined);
    await new Promise((resolve) => setImmediate(resolve));
    // The call used 20: 60 fit now.
    expect(await keyring.admit('app', 60)).toMatchObject({ admitted: true });
    expect((await keyring.usage('app'))?.remaining).toEqual({ tpm: 20 });
    clock.now += 61_000;
    expect((await keyring.usage('app'))?.remaining).toEqual({ tpm: 100 });
  });

  it("corrects each call's own reservation, not the key's oldest", async () => {
    const { keyring, clock } = await keyringWith({ tpm: 1_000 }, '2026-01-01T00:00:00Z');
    const ticketOf = async (estimate: number, sessionId?: string) => {
      const admission = await keyring.admit('app', estimate);
      if (!admission.admitted || admission.ticket === undefined) throw new Error('not admitted');
      admission.ticket.sessionId = sessionId;
      return admission.ticket;
    };
    await ticketOf(400, 'session-a');
    clock.now += 30_000;
    await ticketOf(400, 'session-b');
    // Session b's call ends first, having used 100: its own estimate is corrected, matched by
    // its session, while session a's call still runs.
    keyring.observe(ended(100, 'session-b'), 'app');
    await new Promise((resolve) => setImmediate(resolve));
    // A minute after a's reservation, only b's corrected 100 is left in the window.
    clock.now += 31_000;
    expect((await keyring.usage('app'))?.remaining).toEqual({ tpm: 900 });
    // A call named by its ticket (a compatible call: its id is not a session's) is matched by it.
    const call = await ticketOf(400);
    await ticketOf(300, 'session-c');
    keyring.observe(ended(50, 'openai-call-1'), 'app', call);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await keyring.usage('app'))?.remaining).toEqual({ tpm: 1_000 - 100 - 50 - 300 });
    // An end nothing matches corrects no reservation: c keeps its estimate (its 1 token is
    // recorded beside it, see below).
    keyring.observe(ended(1, 'session-z'), 'app');
    await new Promise((resolve) => setImmediate(resolve));
    expect((await keyring.usage('app'))?.remaining).toEqual({ tpm: 549 });
  });

  it("counts a turn's tokens under tpm once: by its own reservation, else recorded (admitted elsewhere)", async () => {
    const { keyring } = await keyringWith({ tpm: 10_000 }, '2026-01-01T00:00:00Z');
    const left = async () => (await keyring.usage('app'))?.remaining.tpm;
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    // One gateway, a followup: two messages admitted for session s, each answered by its turn.
    for (const estimate of [900, 800]) {
      const admission = await keyring.admit('app', estimate);
      if (!admission.admitted || admission.ticket === undefined) throw new Error('not admitted');
      admission.ticket.sessionId = 's';
    }
    keyring.observe(ended(120, 's'), 'app');
    keyring.observe(ended(30, 's'), 'app');
    await settle();
    expect(await left()).toBe(10_000 - 120 - 30);
    // The message queued at another gateway that answered it: this gateway's turn-end says so
    // with no attempts; its reservation settles at 0 here.
    const queued = await keyring.admit('app', 700);
    if (!queued.admitted || queued.ticket === undefined) throw new Error('not admitted');
    queued.ticket.sessionId = 'q';
    const answeredThere = ended(0, 'q');
    (answeredThere as { outcome: { attempts: unknown[] } }).outcome.attempts = [];
    keyring.observe(answeredThere, 'app');
    await settle();
    expect(await left()).toBe(10_000 - 150);
    // The gateway that answered a message admitted elsewhere holds no reservation for it: the
    // turn's tokens are recorded, once, under the key's tpm.
    keyring.observe(ended(40, 'q'), 'app');
    await settle();
    expect(await left()).toBe(10_000 - 190);
    expect((await keyring.usage('app'))?.tokens.input).toBe(190);
  });

  it('settles a message folded into a running turn (steer) at 0 tokens when that turn ends', async () => {
    const { keyring } = await keyringWith({ tpm: 1_000 }, '2026-01-01T00:00:00Z');
    for (const estimate of [300, 100, 200]) {
      const admission = await keyring.admit('app', estimate);
      if (!admission.admitted || admission.ticket === undefined) throw new Error('not admitted');
      admission.ticket.sessionId = estimate === 100 ? 'other' : 's';
    }
    // The turn of the first message used 120 tokens, the second message folded in: both settled.
    const end = ended(120, 's');
    (end as { outcome: { steeredMessageIds?: string[] } }).outcome.steeredMessageIds = ['m-2'];
    keyring.observe(end, 'app');
    await new Promise((resolve) => setImmediate(resolve));
    // The other session's estimate stands.
    expect((await keyring.usage('app'))?.remaining).toEqual({ tpm: 1_000 - 120 - 100 });
  });

  it("charges a compaction's model calls to the key, at the summarizer's prices", async () => {
    const { keyring } = await keyringWith({}, '2026-01-01T00:00:00Z');
    keyring.chargeCompaction('app', 'demo/m', { inputTokens: 3, outputTokens: 2 });
    keyring.chargeCompaction('app', 'demo/unpriced', { inputTokens: 10, outputTokens: 1 });
    keyring.chargeCompaction('stranger', 'demo/m', { inputTokens: 7, outputTokens: 7 });
    const usage = await keyring.usage('app');
    expect(usage?.tokens).toEqual({ input: 13, output: 3 });
    expect(usage?.costUsd).toBe(5);
    expect(usage?.spend.day.usd).toBe(5);
  });

  it("counts a compaction's tokens under the key's tpm, as no request of its own", async () => {
    const { keyring } = await keyringWith({ rpm: 10, tpm: 1_000 }, '2026-01-01T00:00:00Z');
    keyring.chargeCompaction('app', 'demo/m', { inputTokens: 300, outputTokens: 40 });
    await new Promise((resolve) => setImmediate(resolve));
    expect((await keyring.usage('app'))?.remaining).toEqual({ rpm: 10, tpm: 1_000 - 340 });
  });

  it('refuses past a daily spend cap until the next UTC day', async () => {
    const { keyring, clock } = await keyringWith(
      { spendCapUsd: { day: 5 } },
      '2026-01-31T23:00:00Z',
    );
    expect(await keyring.admit('app', 0)).toEqual({ admitted: true });
    keyring.observe(ended(5), 'app');
    expect(await keyring.admit('app', 0)).toMatchObject({ admitted: false, reason: 'budget' });
    clock.now = Date.parse('2026-02-01T00:00:00Z');
    expect(await keyring.admit('app', 0)).toEqual({ admitted: true });
    const usage = await keyring.usage('app');
    expect(usage?.spend.day).toEqual({ period: '2026-02-01', usd: 0 });
    expect(usage?.costUsd).toBe(5);
    expect(usage?.rejected.budget).toBe(1);
  });
});
