// Session owners every gateway on one PostgreSQL shares: a claim is the database's (the first key
// wins, on any gateway), and an owner once known is kept in memory (an owner never changes). A
// key's sessions are listed from the database, whichever gateway the key used.
import type { PostgresKeyRecords } from '@keel/session-store-postgres';
import type { SessionOwners } from './open-session-owners';

export function openPostgresSessionOwners(
  records: Pick<PostgresKeyRecords, 'claimOwner' | 'ownerOf' | 'sessionsOf'>,
): SessionOwners {
  const known = new Map<string, string>();
  const remember = (sessionId: string, owner: string | undefined) => {
    if (owner !== undefined) known.set(sessionId, owner);
    return owner;
  };
  return {
    ownerOf: (sessionId) => known.get(sessionId),
    async find(sessionId) {
      return known.get(sessionId) ?? remember(sessionId, await records.ownerOf(sessionId));
    },
    async sessionsOf(keyId) {
      const own = await records.sessionsOf(keyId);
      for (const sessionId of own) known.set(sessionId, keyId);
      return new Set(own);
    },
    async claim(sessionId, keyId) {
      const owner = known.get(sessionId) ?? (await records.claimOwner(sessionId, keyId));
      remember(sessionId, owner);
      return owner === keyId;
    },
  };
}
