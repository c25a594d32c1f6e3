// @keel/testing alone: the loopback provider answers plain HTTP (no SDK needed), failing on purpose
// first, and records what it served.
import { createMockProvider, mockFaults } from '@keel/testing';

export async function consume(): Promise<unknown> {
  const provider = await createMockProvider({
    script: [mockFaults.overloaded(), { type: 'ok', text: 'Hello from the mock.' }],
  });
  try {
    const send = () =>
      fetch(`${provider.anthropicBaseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'test' },
        body: JSON.stringify({
          model: 'mock-model',
          max_tokens: 100,
          messages: [{ role: 'user', content: 'hi' }],
        }),
        signal: AbortSignal.timeout(120_000),
      });
    const first = await send();
    const firstBody = (await first.json()) as { error?: { type?: string } };
    const second = await send();
    const secondBody = (await second.json()) as { content?: unknown };
    return {
      statuses: [first.status, second.status],
      error: firstBody.error?.type,
      content: secondBody.content,
      served: provider.requests.map((request) => `${request.api} ${request.behavior}`),
      openaiBaseUrl: provider.openaiBaseUrl === `${provider.url}/v1`,
    };
  } finally {
    await provider.close();
  }
}
