/**
 * Keel as a library: one turn through transport, session fence, compaction and orchestrator,
 * against the loopback mock provider (swap `baseUrl`/`apiKey` for a real provider). Public
 * exports only. The primary model is overloaded on both keys: one rotation, then the fallback.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCompactor } from '@keel/compaction';
import { createOrchestrator } from '@keel/orchestrator';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import { createMockProvider, mockFaults } from '@keel/testing';
import { createTransport } from '@keel/transport';

export async function quickstart() {
  const mock = await createMockProvider({
    script: [mockFaults.overloaded(), mockFaults.overloaded()].map((behavior) => ({
      behavior,
      match: { model: 'claude-primary' },
    })),
  });
  const storage = createTranscriptStore({
    sessionsDir: await mkdtemp(join(tmpdir(), 'keel-quickstart-')),
  });
  const keys: Record<string, string> = { main: 'sk-ant-1', spare: 'sk-ant-2', backup: 'sk-2' };
  const orchestrator = createOrchestrator({
    storage,
    fences: (sessionId) => createSessionFence({ storage, sessionId }),
    providers: [
      { id: 'anthropic', profiles: [{ id: 'main' }, { id: 'spare' }] },
      { id: 'openai', profiles: [{ id: 'backup' }] },
    ],
    models: { primary: 'anthropic/claude-primary', fallbacks: ['openai/gpt-fallback'] },
    router: {
      connect: ({ providerId, profileId, model }) =>
        providerId === 'anthropic'
          ? createTransport({
              api: 'anthropic-messages',
              baseUrl: mock.anthropicBaseUrl,
              apiKey: keys[profileId] ?? '',
              model,
            })
          : createTransport({
              api: 'openai-chat',
              baseUrl: mock.openaiBaseUrl,
              apiKey: keys[profileId] ?? '',
              model,
            }),
    },
    compactor: createCompactor({ contextWindowTokens: 200_000 }),
  });
  const decisions: string[] = [];
  orchestrator.subscribe((event) => {
    if (event.type === 'decision') decisions.push(event.label);
  });
  const outcome = await orchestrator.runTurn({ sessionId: 'quickstart', input: 'Hello!' });
  await mock.close();
  return { outcome, decisions, requests: mock.requests.length };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { outcome, decisions } = await quickstart();
  console.log(outcome.kind, outcome.model, decisions.join(' → '), outcome.text);
}
