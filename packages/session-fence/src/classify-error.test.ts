import { join } from 'node:path';
import { classifyError } from '@keel/error-classification';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../test/support';
import { createSessionFence } from './session-fence';
import { SessionTakeoverError } from './session-fence-error';
import { createSessionLock } from './session-lock';
import { createTranscriptStore } from './transcript-store';

describe('@keel/error-classification reads the kinds this package raises', () => {
  it('classifies a real lock timeout as coordination', async () => {
    const { dir, cleanup } = await makeTempDir();
    try {
      const lock = createSessionLock({ path: join(dir, 's.lock') });
      const held = await lock.acquire();
      const error = await lock.acquire({ timeoutMs: 50 }).catch((caught: unknown) => caught);
      await held.release();
      expect(classifyError(error).kind).toBe('coordination');
      expect(classifyError(new Error('turn failed', { cause: error })).kind).toBe('coordination');
    } finally {
      await cleanup();
    }
  });

  it('classifies a real takeover as session_takeover', async () => {
    const { dir, cleanup } = await makeTempDir();
    try {
      const store = createTranscriptStore({ sessionsDir: dir });
      const fence = createSessionFence({ storage: store, sessionId: 's' });
      await fence.acquire();
      await fence.release();
      await store.append('s', [
        { type: 'turn', id: 'x', timestamp: 't', turnId: 'other', phase: 'start' },
      ]);
      const error = await fence.reacquire().catch((caught: unknown) => caught);
      expect(SessionTakeoverError.isInstance(error)).toBe(true);
      expect(classifyError(error).kind).toBe('session_takeover');
      expect(classifyError(error).retryable).toBe(false);
    } finally {
      await cleanup();
    }
  });
});
