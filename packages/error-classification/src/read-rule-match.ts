import type { ErrorClassification } from './error-classification';
import { isProviderName } from './error-classification';
import { type ErrorKind, isErrorKind } from './error-kind';
import { MAX_RETRY_AFTER_MS } from './retry-wait';

/** The fields of a rule's answer that passed their check. */
export type RuleFields = Partial<Omit<ErrorClassification, 'kind'>>;

/** A rule's answer, checked: a kind, and only the fields that are valid. */
export interface CheckedMatch {
  kind: ErrorKind;
  fields: RuleFields;
}

const isNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** What each field must be to be kept (the promises `ErrorClassification` makes). */
const FIELD_CHECKS: { readonly [K in keyof Required<RuleFields>]: (value: unknown) => boolean } = {
  retryable: (value) => typeof value === 'boolean',
  status: (value) =>
    Number.isInteger(value) && (value as number) >= 400 && (value as number) <= 599,
  code: (value) => typeof value === 'string' && value !== '',
  provider: isProviderName,
  retryAfterMs: (value) => isNumber(value) && value >= 0 && value <= MAX_RETRY_AFTER_MS,
  cooldownMs: (value) => isNumber(value) && value > MAX_RETRY_AFTER_MS,
  message: (value) => typeof value === 'string' && value !== '',
};

function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * Checks what a rule returned. Not a kind (nor an object with one): `undefined`, the rule is
 * skipped. A field that is not valid (a `status` outside 400–599 or not an integer, a negative or
 * non-finite wait, a `retryAfterMs` above 60 s, a `cooldownMs` of 60 s or less, a `provider` not
 * in `ProviderName`, a non-boolean `retryable`, an empty or non-string `code` or `message`, a getter
 * that throws) is dropped: the kind stands and the classifier fills that field from the facts.
 * Fields that `ErrorClassification` does not have are never copied.
 */
export function readRuleMatch(result: unknown): CheckedMatch | undefined {
  if (typeof result === 'string')
    return isErrorKind(result) ? { kind: result, fields: {} } : undefined;
  if (typeof result !== 'object' || result === null) return undefined;
  const kind = read(result, 'kind');
  if (!isErrorKind(kind)) return undefined;
  const fields: Record<string, unknown> = {};
  for (const [key, isValid] of Object.entries(FIELD_CHECKS)) {
    const value = read(result, key);
    if (value !== undefined && isValid(value)) fields[key] = value;
  }
  return { kind, fields: fields as RuleFields };
}
