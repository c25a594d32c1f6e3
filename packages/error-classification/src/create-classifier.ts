import { BUILTIN_RULES, CALLER_ABORT_RULE } from './builtin-rules';
import type { ClassifierRule, RuleContext, RuleMatch } from './classifier-rule';
import { collectErrorFacts, type ErrorFacts } from './collect-error-facts';
import { detectProvider } from './detect-provider';
import type { ClassifyErrorOptions, ErrorClassification } from './error-classification';
import { isErrorKind } from './error-kind';
import { KIND_POLICY } from './kind-policy';
import { findRequestedWait, waitFields } from './retry-wait';
import { sanitizeForLog } from './sanitize-for-log';

export interface ClassifierOptions {
  /** Application rules, tried in order before the built-in ones (after the caller-abort check). */
  rules?: readonly ClassifierRule[];
}

export interface Classifier {
  classify(error: unknown, options?: ClassifyErrorOptions): ErrorClassification;
}

/** Runs `read`, turning a throw (a hostile getter or proxy) into `undefined`. */
function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

function runRule(
  rule: ClassifierRule,
  error: unknown,
  context: RuleContext,
): RuleMatch | undefined {
  try {
    const result = rule.match(error, context);
    if (result === undefined) return undefined;
    if (typeof result === 'string') return isErrorKind(result) ? result : undefined;
    return isErrorKind(result.kind) ? result : undefined;
  } catch {
    // A broken rule must not turn one failure into another: skip it.
    return undefined;
  }
}

function build(match: RuleMatch, facts: ErrorFacts): ErrorClassification {
  const kind = typeof match === 'string' ? match : match.kind;
  const overrides: Partial<ErrorClassification> = typeof match === 'string' ? {} : match;
  const provider = overrides.provider ?? safely(() => detectProvider(facts));
  const code = overrides.code ?? facts.codes[0];
  const waitMs =
    overrides.retryAfterMs ?? overrides.cooldownMs ?? safely(() => findRequestedWait(facts));
  const message = overrides.message ?? facts.primaryMessage;
  const status = overrides.status ?? facts.status;
  return {
    kind,
    retryable: overrides.retryable ?? KIND_POLICY[kind].retryable,
    ...(status !== undefined ? { status } : {}),
    ...(code !== undefined ? { code: sanitizeForLog(code, { maxLength: 100 }) } : {}),
    ...(provider !== undefined ? { provider } : {}),
    ...waitFields(waitMs),
    ...(message !== undefined ? { message: sanitizeForLog(message) } : {}),
  };
}

/**
 * A classifier with application rules that run before the built-in ones (the `keelKind` rule
 * included). Only a caller abort comes first: with the caller's own signal aborted the kind is
 * always `caller_abort`. The first rule that matches decides the kind.
 */
export function createClassifier(options: ClassifierOptions = {}): Classifier {
  const rules = [CALLER_ABORT_RULE, ...(options.rules ?? []), ...BUILTIN_RULES];
  return {
    classify(error, classifyOptions = {}) {
      const facts = safely(() => collectErrorFacts(error));
      if (facts === undefined) {
        const kind = classifyOptions.signal?.aborted ? 'caller_abort' : 'unknown';
        return { kind, retryable: KIND_POLICY[kind].retryable };
      }
      const context: RuleContext = {
        facts,
        ...(classifyOptions.signal !== undefined ? { signal: classifyOptions.signal } : {}),
      };
      for (const rule of rules) {
        const match = runRule(rule, error, context);
        if (match !== undefined) return build(match, facts);
      }
      return build('unknown', facts);
    },
  };
}
