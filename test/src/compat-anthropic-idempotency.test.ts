/**
 * `Idempotency-Key` on the Anthropic-compatible endpoint is scoped by the caller's credential: the
 * same key from another credential is another call, and the same credential repeats the answer
 * whichever header carries it (`x-api-key` or `Authorization: Bearer`).
 */
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, removeDir, startGateway } from './support/gateway-process';

let mock: MockProvider;
let gateway: GatewayProcess;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startGateway({
    config: {
      sessionsDir: 'sessions',
      providers: [
        {
          id: 'ci',
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          profiles: [{ id: 'main', apiKey: 'sk-ci' }],
        },
      ],
      models: { primary: 'ci/idem-scope' },
      retry: { maxRetries: 0 },
    },
  });
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway) await removeDir(gateway.dir);
  await mock?.close();
});

async function ask(credential: Record<string, string>): Promise<string> {
  const response = await gateway.fetch('/v1/messages', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'shared-key', ...credential },
    body: JSON.stringify({
      model: 'default',
      max_tokens: 20,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });
  expect(response.status).toBe(200);
  const message = (await response.json()) as { content: Array<{ text: string }> };
  return message.content[0]?.text ?? '';
}

describe('Idempotency-Key and credentials', () => {
  it('is shared by one credential in either header, never across credentials', async () => {
    mock.enqueue(
      { behavior: { type: 'ok', text: 'For alice.' }, match: { model: 'idem-scope' } },
      { behavior: { type: 'ok', text: 'For bob.' }, match: { model: 'idem-scope' } },
    );
    expect(await ask({ 'x-api-key': 'alice' })).toBe('For alice.');
    expect(await ask({ authorization: 'Bearer alice' })).toBe('For alice.');
    expect(await ask({ 'x-api-key': 'bob' })).toBe('For bob.');
    expect(mock.requests.filter((request) => request.model === 'idem-scope')).toHaveLength(2);
  });
});
