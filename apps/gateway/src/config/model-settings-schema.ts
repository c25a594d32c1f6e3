// The per-model and provider-health sections of keel.config.json, apart from the top-level
// schema so that each setting, its bound and its default are read in one place.
import { z } from 'zod';

const positiveInt = z.number().int().positive();
const perMillion = z.number().min(0).finite();

/** USD per million tokens; the cache prices default to `input` when left out. */
export const pricesSchema = z.strictObject({
  input: perMillion,
  output: perMillion,
  cacheRead: perMillion.optional(),
  cacheWrite: perMillion.optional(),
});

/** One model's settings (`models.settings["providerId/model"]`); every field optional. */
export const modelSettingsSchema = z.strictObject({
  contextWindowTokens: positiveInt.optional(),
  maxOutputTokens: positiveInt.optional(),
  firstTokenTimeoutMs: positiveInt.optional(),
  stallTimeoutMs: positiveInt.optional(),
  prices: pricesSchema.optional(),
});

/**
 * The breakers shared by every session: a model's breaker opens when, within `windowMs`, at least
 * `minFailures` of its requests failed and they were at least `failureRatio` of them; it stays
 * open `cooldownMs`, doubled per failed probe up to `maxCooldownMs`; a probe that has not ended
 * after `probeTimeoutMs` frees the half-open slot.
 */
export const healthSchema = z
  .strictObject({
    windowMs: positiveInt.default(30_000),
    minFailures: positiveInt.default(3),
    failureRatio: z.number().gt(0).max(1).default(0.5),
    cooldownMs: positiveInt.default(10_000),
    maxCooldownMs: positiveInt.default(30_000),
    probeTimeoutMs: positiveInt.default(60_000),
  })
  .refine((health) => health.maxCooldownMs >= health.cooldownMs, {
    message: 'maxCooldownMs must be at least cooldownMs',
    path: ['maxCooldownMs'],
  })
  .prefault({});

export type Prices = z.output<typeof pricesSchema>;
export type ModelSettingsConfig = z.output<typeof modelSettingsSchema>;
export type HealthConfig = z.output<typeof healthSchema>;
