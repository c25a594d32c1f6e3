import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented token with the configured one in constant time: `Authorization: Bearer`
 * (OpenAI clients, the session API) or `x-api-key` (what Anthropic clients send).
 */
export function createTokenCheck(
  token: string,
): (authorization: string | undefined, apiKey?: string | string[]) => boolean {
  const find = createCredentialLookup([{ id: true as const, secret: token }]);
  return (authorization, apiKey) => find(authorization, apiKey) === true;
}

/**
 * Finds whose credential a request presents (`Authorization: Bearer` or `x-api-key`) among
 * several secrets: each comparison runs in constant time over SHA-256 digests, and every secret
 * is compared whatever matched, so the time taken says nothing about which secret, or how much
 * of one, was right. `undefined` when none matches.
 */
export function createCredentialLookup<T>(
  entries: ReadonlyArray<{ id: T; secret: string }>,
): (authorization: string | undefined, apiKey?: string | string[]) => T | undefined {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const expected = entries.map((entry) => ({ id: entry.id, digest: digest(entry.secret) }));
  const find = (presented: string): T | undefined => {
    const presentedDigest = digest(presented);
    let found: T | undefined;
    for (const entry of expected) {
      // Secrets are unique: at most one matches, and every one is compared.
      if (timingSafeEqual(presentedDigest, entry.digest)) found = entry.id;
    }
    return found;
  };
  return (authorization, apiKey) => {
    const bearer = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    const byBearer = bearer === null ? undefined : find(bearer[1] as string);
    if (byBearer !== undefined) return byBearer;
    return typeof apiKey === 'string' && apiKey !== '' ? find(apiKey) : undefined;
  };
}
