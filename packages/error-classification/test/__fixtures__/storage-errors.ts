import { keelError } from '../keel-error';
import type { ErrorFixture } from './error-fixture';

/** A Node system error as `fs` raises it: `code`, `errno`, `syscall` and Node's message. */
function systemError(code: string, errno: number, syscall: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}, ${syscall}`), { code, errno, syscall });
}

/** A store's storage error (`StorageErrorShape`): marker, `keelKind: 'storage'`, the cause kept. */
function storageError(reason: string, operation: string, cause: unknown): Error {
  return Object.assign(
    keelError({ name: 'StorageError', keelKind: 'storage', message: `${operation} failed`, cause }),
    { reason, operation, sessionId: 's-1', code: (cause as { code?: string }).code },
  );
}

const NODE_ERRORS = 'https://nodejs.org/api/errors.html#common-system-errors';
const PG_ERRORS = 'https://www.postgresql.org/docs/current/errcodes-appendix.html';

/** The disk or database under a store failed it: `storage`, whatever the cause looks like. */
export const STORAGE_FIXTURES: readonly ErrorFixture[] = [
  {
    name: 'ENOSPC from a write (disk full), unwrapped',
    source: `${NODE_ERRORS} and write(2) (ENOSPC)`,
    kind: 'storage',
    code: 'ENOSPC',
    error: systemError('ENOSPC', -28, 'write', 'no space left on device'),
  },
  {
    name: 'EDQUOT from an open (quota exhausted), unwrapped',
    source: 'open(2) (EDQUOT: the user quota of disk blocks or inodes has been exhausted)',
    kind: 'storage',
    code: 'EDQUOT',
    error: systemError('EDQUOT', -122, 'open', 'disk quota exceeded'),
  },
  {
    name: 'EROFS from an open (read-only mount), unwrapped',
    source: 'open(2) (EROFS: write access requested on a read-only file system)',
    kind: 'storage',
    code: 'EROFS',
    error: systemError('EROFS', -30, 'open', 'read-only file system'),
  },
  {
    name: "a store's storage error over EACCES (an unwritable sessions dir)",
    source: `${NODE_ERRORS} (EACCES) and StorageErrorShape in @keel/spec`,
    kind: 'storage',
    error: storageError(
      'permission',
      'lease',
      systemError('EACCES', -13, 'open', 'permission denied'),
    ),
  },
  {
    name: "a store's storage error over EMFILE (no file descriptors left)",
    source: `${NODE_ERRORS} (EMFILE) and StorageErrorShape in @keel/spec`,
    kind: 'storage',
    error: storageError(
      'exhausted',
      'append',
      systemError('EMFILE', -24, 'open', 'too many open files'),
    ),
  },
  {
    name: "a store's storage error over a database's ECONNREFUSED (PostgreSQL down)",
    source: `${PG_ERRORS} and StorageErrorShape in @keel/spec`,
    kind: 'storage',
    error: storageError(
      'unavailable',
      'lease',
      systemError('ECONNREFUSED', -111, 'connect', 'connect ECONNREFUSED /tmp/.s.PGSQL.5432'),
    ),
  },
  {
    name: "a store's storage error over a statement timeout (57014, a frozen database)",
    source: `${PG_ERRORS} (57014 query_canceled)`,
    kind: 'storage',
    error: storageError(
      'unavailable',
      'append',
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
    ),
  },
];
