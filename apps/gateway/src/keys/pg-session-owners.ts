// Session owners every gateway on one PostgreSQL shares: a claim is the database's (the first key
// wins, on any gateway), and an owner once known is kept in memory (an owner never changes).
import type { PostgresKeyRecords } from '@keel/session-store-postgres';
import type { SessionOwners } from './open-session-owners';

export function openPostgresSessionOwners(
  records: Pick<PostgresKeyRecords, 'claimOwner' | 'ownerOf'>,
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
    async claim(sessionId, keyId) {
      const owner = known.get(sessionId) ?? (await records.claimOwner(sessionId, keyId));
      remember(sessionId, owner);
      return owner === keyId;
    },
  };
}
