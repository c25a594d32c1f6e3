/**
 * Client keys over several gateways on one PostgreSQL: the gateways count a key's requests in the
 * database's budget rows (together they admit `rpm` a minute, not `rpm` each), record which key
 * owns each session there (another key gets 404 on every gateway), and add up each key's spend
 * there (a cap reached through one gateway refuses on the others).
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import { createMockProvider, type MockProvider } from '@keel/testing';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { GatewayProcess } from './support/gateway-process';
import { holdUpstream } from './support/held-upstream';
import { transcriptOf, transcriptReader } from './support/postgres-sessions';
import { sharedGatewayConfig } from './support/shared-gateway-config';
import { useGateways } from './support/use-gateways';

const database = useTestDatabase();
const group = useGateways();
const SECRET = 'keys-postgres-secret-1';

/**
 * A mock provider for the test (closed after it) and the shared config over the test's database
 * for `model`, with what `extra` returns (keys, and what else the case changes) merged over it.
 */
async function keyedConfig(
  model: string,
  extra: (shared: Record<string, unknown>) => Record<string, unknown>,
): Promise<{ mock: MockProvider; config: Record<string, unknown> }> {
  const mock = await createMockProvider();
  group.defer(() => mock.close());
  const shared = sharedGatewayConfig({ mock, databaseUrl: database.url, model });
  return { mock, config: { ...shared, ...extra(shared) } };
}

/** Two gateways on one config, one after the other. */
async function twoGateways(
  config: Record<string, unknown>,
): Promise<[GatewayProcess, GatewayProcess]> {
  return [await group.start({ config }), await group.start({ config })];
}

/** A key's headers for a JSON request. */
const headers = (secret: string) => ({
  authorization: `Bearer ${secret}`,
  'content-type': 'application/json',
});

describe('a key with rpm on two gateways over one database', () => {
  it('is admitted rpm times in all, then refused with Retry-After on either', {
    timeout: 300_000,
  }, async () => {
    const { config } = await keyedConfig('keys-pg-model', () => ({
      keys: [{ id: 'shared-app', secret: SECRET, rpm: 3 }],
    }));
    const [first, second] = await twoGateways(config);
    const ask = (gateway: GatewayProcess) =>
      new OpenAI({ apiKey: SECRET, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions
        .create({ model: 'default', messages: [{ role: 'user', content: 'hi' }] })
        .then(
          () => 200,
          (error: { status?: number; headers?: Headers }) => {
            expect(Number(error.headers?.get('retry-after'))).toBeGreaterThan(0);
            return error.status;
          },
        );
    expect(await ask(first)).toBe(200);
    expect(await ask(second)).toBe(200);
    expect(await ask(first)).toBe(200);
    // Each gateway alone has admitted at most 2 of 3: only the shared count refuses these.
    expect(await ask(second)).toBe(429);
    expect(await ask(first)).toBe(429);
  });
});

describe('session owners and spend on two gateways over one database', () => {
  const ALPHA = 'keys-postgres-alpha-1';
  const BETA = 'keys-postgres-beta-1';
  const ownerKeys = () => ({
    keys: [
      { id: 'alpha', secret: ALPHA },
      { id: 'beta', secret: BETA },
    ],
  });

  it("hides a key's session from other keys on every gateway", { timeout: 300_000 }, async () => {
    const { config } = await keyedConfig('keys-pg-owner-model', ownerKeys);
    const [first, second] = await twoGateways(config);
    const created = await fetch(`${first.url}/v1/sessions/owned-by-alpha/messages`, {
      method: 'POST',
      headers: headers(ALPHA),
      body: JSON.stringify({ text: 'hello' }),
    });
    expect(created.status).toBe(200);
    const read = (gateway: GatewayProcess, secret: string) =>
      fetch(`${gateway.url}/v1/sessions/owned-by-alpha`, { headers: headers(secret) });
    // The second gateway never saw the session created: only the database knows its owner.
    expect((await read(second, BETA)).status).toBe(404);
    expect((await read(second, ALPHA)).status).toBe(200);
    const write = await fetch(`${second.url}/v1/sessions/owned-by-alpha/messages`, {
      method: 'POST',
      headers: headers(BETA),
      body: JSON.stringify({ text: 'mine now?' }),
    });
    expect(write.status).toBe(404);
    expect((await read(first, BETA)).status).toBe(404);
  });

  it("lists a key all its sessions on every gateway, and never another key's", {
    timeout: 300_000,
  }, async () => {
    const { config } = await keyedConfig('keys-pg-list-model', ownerKeys);
    const [first, second] = await twoGateways(config);
    const create = async (gateway: GatewayProcess, secret: string, sessionId: string) => {
      const created = await fetch(`${gateway.url}/v1/sessions/${sessionId}/messages`, {
        method: 'POST',
        headers: headers(secret),
        body: JSON.stringify({ text: 'hello' }),
      });
      expect(created.status).toBe(200);
    };
    await create(first, ALPHA, 'listed-alpha-1');
    await create(second, ALPHA, 'listed-alpha-2');
    await create(first, BETA, 'listed-beta-1');
    const list = async (gateway: GatewayProcess, secret: string) => {
      const listed = await fetch(`${gateway.url}/v1/sessions?prefix=listed-`, {
        headers: headers(secret),
      });
      expect(listed.status).toBe(200);
      const { sessions } = (await listed.json()) as { sessions: Array<{ sessionId: string }> };
      return sessions.map((session) => session.sessionId).sort();
    };
    // Each gateway saw only some of alpha's sessions created: the database knows them all.
    expect(await list(second, ALPHA)).toEqual(['listed-alpha-1', 'listed-alpha-2']);
    expect(await list(first, ALPHA)).toEqual(['listed-alpha-1', 'listed-alpha-2']);
    expect(await list(second, BETA)).toEqual(['listed-beta-1']);
  });

  it('refuses a key at one gateway once it spent its cap through the other', {
    timeout: 300_000,
  }, async () => {
    const model = 'keys-pg-spend-model';
    const { config } = await keyedConfig(model, (shared) => ({
      models: {
        ...(shared['models'] as Record<string, unknown>),
        // A dollar per token: one answer costs more than the cap.
        settings: { [`anthropic/${model}`]: { prices: { input: 1_000_000, output: 1_000_000 } } },
      },
      keys: [{ id: 'capped', secret: BETA, spendCapUsd: { day: 1 } }],
    }));
    const [first, second] = await twoGateways(config);
    const ask = (gateway: GatewayProcess) =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: headers(BETA),
        body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await ask(first)).status).toBe(200);
    // The call's cost is added when its turn ends: wait until the other gateway reads it.
    const spentAtSecond = async () => {
      const usage = await fetch(`${second.url}/v1/keys/capped/usage`, { headers: headers(BETA) });
      return ((await usage.json()) as { spend: { day: { usd: number } } }).spend.day.usd;
    };
    await expect.poll(spentAtSecond, { timeout: 60_000, interval: 50 }).toBeGreaterThanOrEqual(1);
    const refused = await ask(second);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(await refused.json())).toMatch(/budget_exceeded/);
  });
});

describe('a key whose limits cannot be checked', () => {
  const SECRET_FROZEN = 'keys-postgres-frozen-1';
  it('is answered 503 with Retry-After in the wire of its route, then served again', {
    timeout: 300_000,
  }, async () => {
    const { mock, config } = await keyedConfig('keys-pg-frozen-model', (shared) => ({
      storage: {
        ...(shared['storage'] as Record<string, unknown>),
        timeouts: { statementMs: 1_000 },
      },
      keys: [{ id: 'frozen', secret: SECRET_FROZEN, rpm: 100 }],
    }));
    const gateway = await group.start({ config });
    const keyHeaders = headers(SECRET_FROZEN);
    const chat = () =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: keyHeaders,
        body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const messages = () =>
      fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: keyHeaders,
        body: JSON.stringify({
          model: 'default',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
    expect((await chat()).status).toBe(200);
    // The key's budget rows stay locked (as behind a stuck transaction): its ledger call times out.
    const holder = await database.pool({ max: 1 }).connect();
    group.defer(async () => holder.release(true));
    await holder.query("SELECT pg_advisory_lock(hashtextextended('keel.budget:key:frozen', 0))");
    const requestsBefore = mock.requests.length;
    const refused = await chat();
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({
      error: { type: 'server_error', code: 'unavailable' },
    });
    const refusedAnthropic = await messages();
    expect(refusedAnthropic.status).toBe(503);
    expect(Number(refusedAnthropic.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refusedAnthropic.json()).toMatchObject({
      type: 'error',
      error: { type: 'api_error' },
    });
    expect(mock.requests.length).toBe(requestsBefore);
    await holder.query("SELECT pg_advisory_unlock(hashtextextended('keel.budget:key:frozen', 0))");
    expect((await chat()).status).toBe(200);
  });
});

describe("a key's tpm when its message is queued at one gateway and answered by another", () => {
  it('counts the tokens of that answer against the key once, cluster-wide', {
    timeout: 300_000,
  }, async () => {
    const TPM = 1_000_000;
    const model = 'keys-pg-queued-model';
    const ROUNDS = 6;
    const mock = await createMockProvider();
    const upstream = await holdUpstream(mock.anthropicBaseUrl);
    group.defer(() => Promise.all([upstream.close(), mock.close()]));
    const config = {
      ...sharedGatewayConfig({
        mock: { anthropicBaseUrl: upstream.baseUrl },
        databaseUrl: database.url,
        model,
      }),
      // A key per round: each round's tokens are alone in their key's minute.
      keys: Array.from({ length: ROUNDS }, (_, index) => ({
        id: `metered-${index + 1}`,
        secret: `${SECRET}-${index + 1}`,
        tpm: TPM,
      })),
    };
    const [first, second] = await twoGateways(config);
    const reader = transcriptReader(database);
    type Answer = { usage?: { inputTokens: number; outputTokens: number } };
    const send = async (gateway: GatewayProcess, round: number, clientMessageId: string) => {
      const answer = await fetch(`${gateway.url}/v1/sessions/queued-tpm-${round}/messages`, {
        method: 'POST',
        headers: headers(`${SECRET}-${round}`),
        body: JSON.stringify({ text: clientMessageId, clientMessageId }),
      });
      expect(answer.status).toBe(200);
      const { usage } = (await answer.json()) as Answer;
      return (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
    };
    const usage = async (gateway: GatewayProcess, round: number) =>
      (await (
        await fetch(`${gateway.url}/v1/keys/metered-${round}/usage`, {
          headers: headers(`${SECRET}-${round}`),
        })
      ).json()) as { tokens: { input: number; output: number }; remaining: { tpm: number } };
    const charged = async (gateway: GatewayProcess, round: number) => {
      const { tokens } = await usage(gateway, round);
      return tokens.input + tokens.output;
    };
    let answeredByFirst = 0;
    // When the first gateway's turn ends, its followup for the queued message and the second
    // gateway (waiting for an answer) race for the session's turn: either may answer it, and the
    // count must be right both ways. The case is repeated until the first has answered it.
    for (let round = 1; round <= ROUNDS && answeredByFirst === 0; round += 1) {
      const sessionId = `queued-tpm-${round}`;
      // The first turn's model call is held until the second message is queued for that turn.
      const held = upstream.holdNext();
      const running = send(first, round, `q1-${round}`);
      await held.arrived;
      // The first gateway holds the session's turn (its call in flight): the second queues this
      // one for that turn, and waits for its answer.
      const queued = send(second, round, `q2-${round}`);
      await expect
        .poll(
          async () =>
            (await transcriptOf(reader, sessionId)).some(
              (entry) => entry.type === 'message' && entry.clientMessageId === `q2-${round}`,
            ),
          { timeout: 60_000 },
        )
        .toBe(true);
      held.release();
      const [one, two] = await Promise.all([running, queued]);
      expect(two).toBeGreaterThan(0);
      const reported = one + two;
      // Each gateway charges the tokens of the calls it made: together, what the provider reported.
      await expect
        .poll(async () => (await charged(first, round)) + (await charged(second, round)), {
          timeout: 60_000,
        })
        .toBe(reported);
      if ((await charged(second, round)) === 0) answeredByFirst += 1;
      // The key's minute (in the database, shared) holds exactly the tokens the provider reported
      // for both answers: not the queued message's estimate too, not nothing for it.
      await expect
        .poll(async () => TPM - (await usage(second, round)).remaining.tpm, { timeout: 60_000 })
        .toBe(reported);
    }
    expect(answeredByFirst).toBe(1);
  });
});
