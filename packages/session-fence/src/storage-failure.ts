import type { StorageFailureReason } from '@keel/spec';
import { errorCode } from './safe-file';
import { SessionFenceError, StorageError } from './session-fence-error';

/** The system error codes that mean the file system, not the caller, failed the store. */
const REASONS: ReadonlyMap<string, StorageFailureReason> = new Map([
  ['ENOSPC', 'no_space'],
  ['EDQUOT', 'no_space'],
  ['EROFS', 'read_only'],
  ['EACCES', 'permission'],
  ['EPERM', 'permission'],
  ['EMFILE', 'exhausted'],
  ['ENFILE', 'exhausted'],
  ['EIO', 'io'],
  ['EFBIG', 'no_space'],
]);

/**
 * `error` as the store's caller should see it: a system error of the file system (a full disk, a
 * read-only or unwritable directory, no descriptors left) becomes a `StorageError` naming the
 * operation and session; the store's own errors (a takeover, a busy lock, a bad id) and anything
 * else pass unchanged.
 */
export function storageFailure(error: unknown, operation: string, sessionId?: string): unknown {
  if (SessionFenceError.isInstance(error)) return error;
  const code = errorCode(error);
  const reason = code === undefined ? undefined : REASONS.get(code);
  if (reason === undefined) return error;
  return new StorageError({ reason, operation, sessionId, code, cause: error });
}

/** Runs a store operation, its file-system failures rethrown as `StorageError`s. */
export async function asStorageCall<T>(
  operation: string,
  sessionId: string | undefined,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw storageFailure(error, operation, sessionId);
  }
}
