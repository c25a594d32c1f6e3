import { createSessionFence } from '@keel/session-fence';
import type { SessionFenceFactory, SessionStorage, TranscriptEntry } from '@keel/spec';
import type { Harness } from './harness';

/** The turn's fences over the harness's store, each append answered through `append`. */
export function fencesOver(
  h: () => Harness,
  append: (
    storage: SessionStorage,
    ...args: Parameters<SessionStorage['append']>
  ) => ReturnType<SessionStorage['append']>,
): SessionFenceFactory {
  return (sessionId: string) => {
    const storage = h().storage;
    const wrapped = Object.create(storage) as SessionStorage;
    wrapped.append = (...args) => append(storage, ...args);
    return createSessionFence({ storage: wrapped, sessionId });
  };
}

/** A write's entries, for reading: `message+turn-start`. */
export const describeWrite = (entries: readonly TranscriptEntry[]): string =>
  entries.map((entry) => (entry.type === 'turn' ? `turn-${entry.phase}` : entry.type)).join('+');
