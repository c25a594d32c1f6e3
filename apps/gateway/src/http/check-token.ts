import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares a presented bearer token with the configured one in constant time. */
export function createTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (authorization) => {
    const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    if (match === null) return false;
    const presented = createHash('sha256')
      .update(match[1] as string)
      .digest();
    return timingSafeEqual(presented, expected);
  };
}
