/** JSON schemas of the routes' inputs (Fastify validates them; no type coercion). */
export const SESSION_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$';

export const sessionParams = {
  type: 'object',
  required: ['sessionId'],
  properties: { sessionId: { type: 'string', pattern: SESSION_ID_PATTERN } },
} as const;

/** A message: `text` and an optional `clientMessageId`; any other field is a `400`. */
export const messageBody = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: {
    text: { type: 'string', minLength: 1, pattern: '\\S' },
    clientMessageId: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

export const modelBody = {
  type: 'object',
  required: ['model'],
  properties: { model: { type: 'string', minLength: 3, maxLength: 300 } },
} as const;

export const compactBody = {
  type: ['object', 'null'],
  properties: { focus: { type: 'string', maxLength: 4000 } },
} as const;

/**
 * A count in a query string, 1 to 1000. Query values are strings and nothing is coerced, so it
 * is matched as digits and read with `readLimit`.
 */
export const limitParam = { type: 'string', pattern: '^(?:[1-9][0-9]{0,2}|1000)$' } as const;

export function readLimit(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

export interface SessionParams {
  sessionId: string;
}
