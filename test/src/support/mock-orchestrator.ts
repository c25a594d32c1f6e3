/**
 * An orchestrator on `storage` whose one provider, `anthropic`, is the mock provider (Anthropic
 * wire) with `model` as its primary: what a gateway restarted on the same storage runs, for tests
 * that crash one process and carry on in this one.
 */
import { createOrchestrator } from '@keel/orchestrator';
import { createSessionFence } from '@keel/session-fence';
import type { SessionStorage } from '@keel/spec';
import type { MockProvider } from '@keel/testing';
import { createTransport } from '@keel/transport';

export function mockOrchestrator(
  storage: SessionStorage,
  mock: Pick<MockProvider, 'anthropicBaseUrl'>,
  model: string,
): ReturnType<typeof createOrchestrator> {
  return createOrchestrator({
    storage,
    fences: (sessionId) => createSessionFence({ storage, sessionId }),
    providers: [{ id: 'anthropic', profiles: [{ id: 'main' }] }],
    models: { primary: `anthropic/${model}` },
    router: {
      connect: ({ model: name }) =>
        createTransport({
          api: 'anthropic-messages',
          baseUrl: mock.anthropicBaseUrl,
          apiKey: 'k',
          model: name,
        }),
    },
  });
}
