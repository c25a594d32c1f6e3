// The `keys` section of keel.config.json: the clients that share a gateway, each with its own
// secret, the models it may use, its rate limits and its spend caps.
import { z } from 'zod';

const positiveInt = z.number().int().positive();
const usd = z.number().positive().finite();

/** One client key. */
export const clientKeySchema = z.strictObject({
  /** Names the key in metrics, the console and `GET /v1/keys/:id/usage`; never a secret. */
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"'),
  /** What the client sends (`Authorization: Bearer` or `x-api-key`); `${ENV}` as elsewhere. */
  secret: z.string().min(1, 'must not be empty'),
  /**
   * What the key may send as `model`: route names and `providerId/model`s. The session API runs
   * the `default` route, so it needs `default`. Left out: everything the gateway routes.
   */
  models: z.array(z.string().min(1)).min(1).optional(),
  /** Requests per minute (a sliding minute); past it `429` with `Retry-After`. */
  rpm: positiveInt.optional(),
  /** Tokens (input + output) per minute: a request is admitted while the last minute is under it. */
  tpm: positiveInt.optional(),
  /** USD per UTC calendar day and month (at `models.settings[…].prices`); past it `403`. */
  spendCapUsd: z.strictObject({ day: usd.optional(), month: usd.optional() }).optional(),
  /** Reads every session, every key's usage and the operator routes (as `server.authToken` does). */
  admin: z.boolean().default(false),
});

export const keysSchema = z
  .array(clientKeySchema)
  .default([])
  .refine(
    (keys) => new Set(keys.map((key) => key.id)).size === keys.length,
    'key ids must be unique',
  )
  .refine(
    (keys) => new Set(keys.map((key) => key.secret)).size === keys.length,
    'key secrets must be unique',
  );

export type ClientKeyConfig = z.output<typeof clientKeySchema>;
