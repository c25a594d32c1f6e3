// The suites of test/ run every mock provider strict (src/support/strict-mock-provider.ts, a
// vitest setup file): a request with an unpaired tool block gets the provider's 400, as Anthropic
// and OpenAI answer it, so a gateway that sends one fails its tests. A test may still opt out.
import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';

let mock: MockProvider | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** An Anthropic request whose last assistant tool_use is never answered. */
async function sendUnpaired(provider: MockProvider): Promise<number> {
  const response = await fetch(`${provider.anthropicBaseUrl}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk-keeltest-strict',
      'anthropic-version': '2023-06-01',
    },
    body: JSON.stringify({
      model: 'claude-strict',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'find it' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }],
        },
        { role: 'user', content: 'never mind' },
      ],
    }),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('the mock providers of these suites are strict', () => {
  it('by default: an unpaired tool_use gets 400 and is recorded as refused', async () => {
    mock = await createMockProvider();
    expect(await sendUnpaired(mock)).toBe(400);
    expect(mock.requests.at(-1)?.strictRejection).toContain('toolu_1');
  });

  it('with other options given (strict stays on), and strict: false still opts out', async () => {
    mock = await createMockProvider({ defaultReply: () => 'lenient' });
    expect(await sendUnpaired(mock)).toBe(400);
    await mock.close();
    mock = await createMockProvider({ strict: false });
    expect(await sendUnpaired(mock)).toBe(200);
  });
});
