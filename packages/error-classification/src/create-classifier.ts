import { BUILTIN_RULES, CALLER_ABORT_RULE } from './builtin-rules';
import type { ClassifierRule, RuleContext } from './classifier-rule';
import { collectErrorFacts, type ErrorFacts } from './collect-error-facts';
import { detectProvider } from './detect-provider';
import type { ClassifyErrorOptions, ErrorClassification } from './error-classification';
import { KIND_POLICY } from './kind-policy';
import { type CheckedMatch, readRuleMatch } from './read-rule-match';
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
): CheckedMatch | undefined {
  try {
    return readRuleMatch(rule.match(error, context));
  } catch {
    // A broken rule must not turn one failure into another: skip it.
    return undefined;
  }
}

function build({ kind, fields }: CheckedMatch, facts: ErrorFacts): ErrorClassification {
  const status = fields.status ?? facts.status;
  const code = fields.code ?? facts.codes[0];
  const provider = fields.provider ?? safely(() => detectProvider(facts));
  const waitMs = fields.retryAfterMs ?? fields.cooldownMs ?? safely(() => findRequestedWait(facts));
  const message = fields.message ?? facts.primaryMessage;
  return {
    kind,
    retryable: fields.retryable ?? KIND_POLICY[kind].retryable,
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
      return build({ kind: 'unknown', fields: {} }, facts);
    },
  };
}
