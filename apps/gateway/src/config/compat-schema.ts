// The compatible endpoints' sections of keel.config.json: named routes a client's `model` may
// name, and how those endpoints stream and remember repeated requests.
import { z } from 'zod';

const modelRef = z.string().regex(/^[^/\s]+\/\S+$/, 'must be "providerId/model"');

/** A route's name: what an OpenAI or Anthropic client sends as `model`. */
export const routeName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/,
    'must be 1-128 letters, digits, ".", "_", ":" or "-"',
  )
  .refine((name) => !name.includes('/'), 'must not contain "/"');

/** `routes`: candidates by name; `default` is `models` unless given here. */
export const routesSchema = z
  .record(
    routeName,
    z.strictObject({ primary: modelRef, fallbacks: z.array(modelRef).default([]) }),
  )
  .default({});

/**
 * `compat`: `streamMode` — `live` (tokens as they come; a failure after the first byte is an
 * in-band error and the stream ends without its terminal event) or `buffered` (the client's stream
 * starts once an attempt completed); `idempotencyTtlMs` — how long a repeated `Idempotency-Key`
 * gets the first answer.
 */
export const compatSchema = z
  .strictObject({
    streamMode: z.enum(['live', 'buffered']).default('live'),
    idempotencyTtlMs: z.number().int().positive().default(600_000),
  })
  .prefault({});

export type RoutesConfig = z.output<typeof routesSchema>;
export type CompatConfig = z.output<typeof compatSchema>;
