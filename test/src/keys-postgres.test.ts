/**
 * A client key's `rpm` over several gateways on one PostgreSQL: the gateways count the key's
 * requests in the database's budget rows, so together they admit `rpm` a minute, not `rpm` each.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import { createMockProvider } from '@keel/testing';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { GatewayProcess } from './support/gateway-process';
import { sharedGatewayConfig } from './support/shared-gateway-config';
import { useGateways } from './support/use-gateways';

const database = useTestDatabase();
const group = useGateways();
const SECRET = 'keys-postgres-secret-1';

describe('a key with rpm on two gateways over one database', () => {
  it('is admitted rpm times in all, then refused with Retry-After on either', {
    timeout: 300_000,
  }, async () => {
    const model = 'keys-pg-model';
    const mock = await createMockProvider();
    group.defer(() => mock.close());
    const config = {
      ...sharedGatewayConfig({ mock, databaseUrl: database.url, model }),
      keys: [{ id: 'shared-app', secret: SECRET, rpm: 3 }],
    };
    const gateways: GatewayProcess[] = [
      await group.start({ config }),
      await group.start({ config }),
    ];
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
    const [first, second] = gateways as [GatewayProcess, GatewayProcess];
    expect(await ask(first)).toBe(200);
    expect(await ask(second)).toBe(200);
    expect(await ask(first)).toBe(200);
    // Each gateway alone has admitted at most 2 of 3: only the shared count refuses these.
    expect(await ask(second)).toBe(429);
    expect(await ask(first)).toBe(429);
  });
});
