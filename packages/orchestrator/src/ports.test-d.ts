/**
 * Type test (checked by `tsc --noEmit`): the packages the gateway wires into the orchestrator
 * satisfy its ports from `@keel/spec`, though the orchestrator depends on none of them at run time.
 */
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { SessionFence, SessionFenceFactory, SessionStorage } from '@keel/spec';

const storage = createTranscriptStore({ sessionsDir: '/tmp/keel-type-test' });
export const storagePort = storage satisfies SessionStorage;
export const fencePort = ((sessionId: string) =>
  createSessionFence({ storage, sessionId }) satisfies SessionFence) satisfies SessionFenceFactory;
