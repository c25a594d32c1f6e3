import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented token with the configured one in constant time: `Authorization: Bearer`
 * (OpenAI clients, the session API) or `x-api-key` (what Anthropic clients send).
 */
export function createTokenCheck(
  token: string,
): (authorization: string | undefined, apiKey?: string | string[]) => boolean {
  const expected = createHash('sha256').update(token).digest();
  const matches = (presented: string) =>
    timingSafeEqual(createHash('sha256').update(presented).digest(), expected);
  return (authorization, apiKey) => {
    const bearer = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    if (bearer !== null && matches(bearer[1] as string)) return true;
    return typeof apiKey === 'string' && apiKey !== '' && matches(apiKey);
  };
}
