import type { StorageFailureReason } from '@keel/spec';
import { PostgresStoreError, StorageError } from './postgres-store-error';

/** SQLSTATE classes and codes that say more than "unavailable" about the database. */
function reasonOf(code: string | undefined): StorageFailureReason {
  if (code === '53100') return 'no_space'; // disk_full
  if (code === '25006') return 'read_only'; // read_only_sql_transaction (a standby)
  if (code === '42501') return 'permission'; // insufficient_privilege
  if (code === '53200' || code === '53300') return 'exhausted'; // out of memory, too many connections
  return 'unavailable';
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code !== '' ? code : undefined;
}

/**
 * `error` as the store's caller should see it: a failure of the database or of the way to it
 * (refused, dropped or timed-out connections, a statement timeout, a full disk, too many
 * connections) becomes a `StorageError` naming the operation and session. The store's own errors
 * (a takeover, a lease timeout, a bad id, a closed store) and the caller's own abort pass unchanged.
 */
export function storageFailure(
  error: unknown,
  operation: string,
  sessionId: string | undefined,
  signal: AbortSignal | undefined,
): unknown {
  if (PostgresStoreError.isInstance(error)) return error;
  if (signal?.aborted === true) return error;
  const code = codeOf(error);
  return new StorageError({ reason: reasonOf(code), operation, sessionId, code, cause: error });
}

/** Runs a store operation, the database's failures rethrown as `StorageError`s. */
export async function asStorageCall<T>(
  operation: string,
  sessionId: string | undefined,
  signal: AbortSignal | undefined,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw storageFailure(error, operation, sessionId, signal);
  }
}
