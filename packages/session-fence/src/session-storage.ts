import type { SessionStorage, StorageCallOptions } from '@keel/spec';
import type { SessionLockAcquireOptions, SessionLockHandle } from './session-lock';

/**
 * Interim: what the fence used before it moved to leases (`SessionStorage.lease`). Removed once
 * the file store implements the spec's port.
 */
export interface LockingSessionStorage
  extends Pick<SessionStorage, 'read' | 'readTail' | 'state' | 'compare'> {
  append(
    sessionId: string,
    entries: Parameters<SessionStorage['append']>[1],
    options?: StorageCallOptions,
  ): ReturnType<SessionStorage['append']>;
  lock(sessionId: string, options?: SessionLockAcquireOptions): Promise<SessionLockHandle>;
}
