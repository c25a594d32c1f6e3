import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { CompatWire } from './compat-context';

/**
 * The idempotency cache key of a request that sent `Idempotency-Key`: its wire, who is asking
 * (the credential hashed, whichever header carried it — `Authorization: Bearer` or `x-api-key` —
 * so one caller never gets another's answer), and the key; `undefined` without the header.
 */
export function idempotencyKeyOf(
  wire: CompatWire,
  headers: IncomingHttpHeaders,
): string | undefined {
  const key = first(headers['idempotency-key']);
  if (key === undefined || key === '') return undefined;
  const bearer = /^Bearer\s+(.+)$/i.exec(first(headers.authorization) ?? '')?.[1];
  const credential = bearer ?? first(headers['x-api-key']) ?? '';
  const caller = createHash('sha256').update(credential).digest('hex');
  return `${wire}:${caller}:${key}`;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
