// The `budgets` section of keel.config.json: provider budgets (rpm, tpm, tpd) per provider profile
// and model, held before the provider answers 429 — and, over PostgreSQL, across every gateway.
import { z } from 'zod';

const positiveInt = z.number().int().positive();

/** One target's limits: each optional; at least one. */
export const budgetLimitsSchema = z
  .strictObject({
    /** Requests per minute (any 60 s: the window slides). */
    rpm: positiveInt.optional(),
    /** Tokens (input + output) per minute: estimated before a request, corrected with its usage. */
    tpm: positiveInt.optional(),
    /** Tokens (input + output) per day. */
    tpd: positiveInt.optional(),
    /**
     * With `rpm`: paces it — at most `burst` requests back to back, then one every minute / rpm —
     * so a provider counting arrivals sees at most about the rpm in any minute. Default
     * max(1, ceil(rpm / 20)) (3 s worth); `burst` equal to `rpm` is the sliding window alone.
     */
    burst: positiveInt.optional(),
    /**
     * With `tpm`: paces its tokens the same way — at most `tpmBurst` tokens back to back, then
     * tpm a minute spread evenly; a larger request goes once the pace has caught up. Default
     * max(1, ceil(tpm / 20)); equal to `tpm` is the sliding window alone.
     */
    tpmBurst: positiveInt.optional(),
  })
  .refine(
    (limits) => limits.rpm !== undefined || limits.tpm !== undefined || limits.tpd !== undefined,
    'needs rpm, tpm or tpd',
  );

/** `providerId/model` (each profile of the model, its own budget) or `providerId/model#profileId`. */
const targetPattern = /^[^/\s#]+\/[^\s#]+(#[A-Za-z0-9][A-Za-z0-9._-]{0,63})?$/;

export const budgetsSchema = z
  .strictObject({
    /**
     * Limits by `providerId/model` (every profile of that model gets its own budget: providers
     * limit each key) or `providerId/model#profileId` (that profile, winning over the model's).
     */
    limits: z
      .record(
        z
          .string()
          .regex(targetPattern, 'must be "providerId/model" or "providerId/model#profileId"'),
        budgetLimitsSchema,
      )
      .default({}),
    /** The length of a budget's "minute"; default 60 000 ms (tests and benchmarks scale it). */
    minuteMs: positiveInt.default(60_000),
  })
  .prefault({});

export type BudgetsConfig = z.output<typeof budgetsSchema>;

/** The configuration this check reads: providers and their profiles. */
interface ProvidersOf {
  providers: ReadonlyArray<{ id: string; profiles?: ReadonlyArray<{ id: string }> | undefined }>;
  budgets: BudgetsConfig;
}

/** Every budget names a provider in `providers` and, when it names one, a profile of it. */
export function checkBudgets(config: ProvidersOf, context: z.RefinementCtx): void {
  for (const target of Object.keys(config.budgets.limits)) {
    const hash = target.indexOf('#');
    const reference = hash < 0 ? target : target.slice(0, hash);
    const providerId = reference.slice(0, reference.indexOf('/'));
    const provider = config.providers.find((candidate) => candidate.id === providerId);
    const path = ['budgets', 'limits', target];
    if (provider === undefined) {
      context.addIssue({
        code: 'custom',
        path,
        message: `names provider "${providerId}", which is not in providers`,
      });
      continue;
    }
    if (hash < 0) continue;
    const profileId = target.slice(hash + 1);
    if (!(provider.profiles ?? [{ id: 'default' }]).some((profile) => profile.id === profileId)) {
      context.addIssue({
        code: 'custom',
        path,
        message: `names profile "${profileId}", which provider "${providerId}" does not have`,
      });
    }
  }
}
