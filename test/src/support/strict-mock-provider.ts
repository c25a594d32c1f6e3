/**
 * Vitest setup file (test/ and apps/gateway/): every mock provider these suites start runs in
 * strict mode unless a test says otherwise — a request with an unpaired `tool_use` /
 * `tool_result` gets the provider's `400 invalid_request_error`, as Anthropic and OpenAI answer
 * it, so a gateway that ever sends one fails its tests instead of passing against a lenient mock.
 */
import { vi } from 'vitest';

vi.mock('@keel/testing', async (importOriginal) => {
  const testing = await importOriginal<typeof import('@keel/testing')>();
  return {
    ...testing,
    createMockProvider: (options: Parameters<typeof testing.createMockProvider>[0] = {}) =>
      testing.createMockProvider({ strict: true, ...options }),
  };
});
