// The forwarding proxy: a request reaches the provider as it came (method, path, body) and its
// answer comes back whole; a request the hook answered never reaches the provider.
import { afterEach, describe, expect, it } from 'vitest';
import { type ForwardingProxy, forwardTo } from './forward-to';
import { createMockProvider } from './mock-provider';
import type { MockProvider } from './mock-provider-types';

let mock: MockProvider;
let proxy: ForwardingProxy;
afterEach(async () => {
  await proxy?.close();
  await mock?.close();
});

/** The text of a recorded Chat Completions request's one user message. */
const userText = (request: { messages: unknown }) =>
  (request.messages as Array<{ content: string }>)[0]?.content;
type Answer = { choices: Array<{ message: { content: string } }> };
const chat = (baseUrl: string, text = 'hello') =>
  fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: text }] }),
  });

describe('forwardTo', () => {
  it('keeps the target path in its base URL and forwards method, path, body and the answer', async () => {
    mock = await createMockProvider({ script: [{ type: 'ok', text: 'through' }] });
    proxy = await forwardTo(mock.openaiBaseUrl);
    expect(proxy.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(proxy.baseUrl).not.toBe(mock.openaiBaseUrl);
    const answer = await chat(proxy.baseUrl);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]?.message.content).toBe('through');
    expect(mock.requests).toHaveLength(1);
    expect(mock.requests[0]).toMatchObject({ api: 'openai-chat', model: 'm' });
  });

  it('sees every request first; one it answered is not forwarded', async () => {
    mock = await createMockProvider({ script: [{ type: 'ok', text: 'second' }] });
    const seen: string[] = [];
    let refused = false;
    proxy = await forwardTo(mock.openaiBaseUrl, (incoming, outgoing) => {
      seen.push(`${incoming.method} ${incoming.url}`);
      if (refused) return undefined;
      refused = true;
      incoming.resume();
      outgoing.writeHead(429, { 'retry-after': '1' });
      outgoing.end();
      return true;
    });
    expect((await chat(proxy.baseUrl)).status).toBe(429);
    expect(mock.requests).toHaveLength(0);
    expect((await chat(proxy.baseUrl)).status).toBe(200);
    expect(mock.requests).toHaveLength(1);
    expect(seen).toEqual(['POST /v1/chat/completions', 'POST /v1/chat/completions']);
  });

  it('a request the hook holds (a promise) reaches the provider only once the promise settles, body whole', async () => {
    mock = await createMockProvider({
      script: [
        { type: 'ok', text: 'passed by' },
        { type: 'ok', text: 'held' },
      ],
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived!: () => void;
    const came = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let first = true;
    proxy = await forwardTo(mock.openaiBaseUrl, () => {
      if (!first) return undefined;
      first = false;
      arrived();
      return released;
    });
    const held = chat(proxy.baseUrl, 'wait');
    await came;
    // A request sent after the held one is forwarded and answered while the held one waits.
    const passed = (await (await chat(proxy.baseUrl, 'go')).json()) as Answer;
    expect(passed.choices[0]?.message.content).toBe('passed by');
    expect(mock.requests.map(userText)).toEqual(['go']);
    release();
    const body = (await (await held).json()) as Answer;
    expect(body.choices[0]?.message.content).toBe('held');
    expect(mock.requests.map(userText)).toEqual(['go', 'wait']);
  });

  it('close() ends open connections and stops listening', async () => {
    mock = await createMockProvider();
    proxy = await forwardTo(mock.openaiBaseUrl);
    await proxy.close();
    await expect(chat(proxy.baseUrl)).rejects.toThrow();
  });
});
