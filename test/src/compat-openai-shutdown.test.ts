// A gateway that stops while OpenAI clients wait for their first byte: each gets a 503 in OpenAI's
// shape with a Retry-After (their SDK retries it), never a dropped connection or a half answer.
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawStream, script, startCompatGateway, TOKEN } from './compat-openai-support';
import { type GatewayProcess, removeDir } from './support/gateway-process';

let mock: MockProvider;
let gateway: GatewayProcess;

beforeAll(async () => {
  mock = await createMockProvider();
  gateway = await startCompatGateway(mock, {
    authToken: TOKEN,
    models: { primary: 'co/sd-hang' },
    shutdown: { graceMs: 300 },
  });
});
afterAll(async () => {
  await gateway?.stop();
  if (gateway !== undefined) await removeDir(gateway.dir);
  await mock?.close();
});

describe('shutdown before the first byte', () => {
  it('a plain and a streamed request waiting on a hung upstream both get 503 with Retry-After', async () => {
    script(mock, 'sd-hang', { type: 'hang' }, { type: 'hang' });
    const received = mock.requests.length;
    const messages = [{ role: 'user', content: 'hi' }];
    const plain = gateway.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ model: 'default', messages }),
    });
    const streamed = rawStream(gateway, { model: 'default', messages });
    await mock.waitForRequests(received + 2);
    const stopped = gateway.stop();

    const answer = await plain;
    expect(answer.status).toBe(503);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await answer.json()).toMatchObject({
      error: { type: 'server_error', code: 'unavailable' },
    });
    const stream = await streamed;
    expect(stream.status).toBe(503);
    expect(JSON.parse(stream.text)).toMatchObject({ error: { type: 'server_error' } });
    expect(await stopped).toBe(0);
  });
});
