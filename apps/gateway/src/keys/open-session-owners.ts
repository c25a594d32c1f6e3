// Which client key created each session: a session belongs to that key, and other keys get `404`
// for it. Kept in memory and appended, one whole line per session, to a file of the gateway's
// own, written before the claiming request goes on (so a restart forgets no owner).
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface SessionOwners {
  /** The key that created the session, if a key did. */
  ownerOf(sessionId: string): string | undefined;
  /**
   * The session's owner wherever it was claimed: `ownerOf` for a gateway's own file, the
   * database's record for the owners every gateway shares (`openPostgresSessionOwners`).
   */
  find(sessionId: string): Promise<string | undefined>;
  /**
   * Makes `keyId` the owner unless another key owns the session; resolves `true` when `keyId`
   * owns it afterwards. Rejects when the line could not be written (nothing is claimed then).
   */
  claim(sessionId: string, keyId: string): Promise<boolean>;
  /**
   * Every session `keyId` owns: a gateway's own file's, or every gateway's over PostgreSQL (so any
   * gateway lists a key all its sessions).
   */
  sessionsOf(keyId: string): Promise<ReadonlySet<string>>;
}

/** One line of the owners file. */
interface OwnerLine {
  version: 1;
  sessionId: string;
  key: string;
}

/**
 * Reads the owners file (a missing file is an empty one; unreadable lines are skipped) and
 * appends new owners to it. Without `file`, owners live in memory only.
 */
export async function openSessionOwners(options: { file?: string } = {}): Promise<SessionOwners> {
  const owners = new Map<string, string>();
  const pending = new Map<string, Promise<unknown>>();
  const { file } = options;
  if (file !== undefined) {
    for (const line of (await readIfThere(file)).split('\n')) {
      const parsed = parseLine(line);
      if (parsed !== undefined && !owners.has(parsed.sessionId))
        owners.set(parsed.sessionId, parsed.key);
    }
    await mkdir(dirname(file), { recursive: true });
  }

  return {
    ownerOf: (sessionId) => owners.get(sessionId),
    find: (sessionId) => Promise.resolve(owners.get(sessionId)),
    sessionsOf(keyId) {
      const own = new Set<string>();
      for (const [sessionId, owner] of owners) if (owner === keyId) own.add(sessionId);
      return Promise.resolve(own);
    },
    claim(sessionId, keyId) {
      const owner = owners.get(sessionId);
      if (owner !== undefined) {
        // A claim still being written may yet fail: its outcome decides.
        const writing = pending.get(sessionId);
        return writing === undefined
          ? Promise.resolve(owner === keyId)
          : writing.then(() => owners.get(sessionId) === keyId);
      }
      owners.set(sessionId, keyId);
      if (file === undefined) return Promise.resolve(true);
      const line: OwnerLine = { version: 1, sessionId, key: keyId };
      const written = appendFile(file, `${JSON.stringify(line)}\n`).then(
        () => {
          pending.delete(sessionId);
          return true;
        },
        (error: unknown) => {
          pending.delete(sessionId);
          owners.delete(sessionId);
          throw error;
        },
      );
      pending.set(
        sessionId,
        written.catch(() => undefined),
      );
      return written;
    },
  };
}

async function readIfThere(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return '';
    throw error;
  }
}

function parseLine(line: string): OwnerLine | undefined {
  if (line.trim() === '') return undefined;
  try {
    const value = JSON.parse(line) as Partial<OwnerLine>;
    return value.version === 1 &&
      typeof value.sessionId === 'string' &&
      typeof value.key === 'string'
      ? (value as OwnerLine)
      : undefined;
  } catch {
    return undefined;
  }
}
