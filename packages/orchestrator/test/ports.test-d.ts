/**
 * Type test (checked by `tsc --noEmit`): the packages the gateway wires into the orchestrator
 * satisfy its ports from `@keel/spec`, though the orchestrator depends on none of them at run time.
 */
import { createCompactor } from '@keel/compaction';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type {
  CompactorPort,
  ModelPort,
  ModelRouter,
  SessionFence,
  SessionFenceFactory,
  SessionStorage,
} from '@keel/spec';
import { createTransport } from '@keel/transport';

const storage = createTranscriptStore({ sessionsDir: '/tmp/keel-type-test' });
export const storagePort = storage satisfies SessionStorage;
export const fencePort = ((sessionId: string) =>
  createSessionFence({ storage, sessionId }) satisfies SessionFence) satisfies SessionFenceFactory;

export const modelPorts = [
  createTransport({ api: 'anthropic-messages', apiKey: 'k', model: 'm' }),
  createTransport({ api: 'openai-chat', apiKey: 'k', model: 'm' }),
  createTransport({ api: 'openai-responses', apiKey: 'k', model: 'm' }),
  createTransport({ api: 'claude-cli' }),
] satisfies ModelPort[];
export const router = {
  connect: ({ model }) => createTransport({ api: 'anthropic-messages', apiKey: 'k', model }),
} satisfies ModelRouter;

export const compactorPort = createCompactor() satisfies CompactorPort;
