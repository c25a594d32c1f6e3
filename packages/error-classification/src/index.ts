export type { ClassifierRule, RuleContext, RuleMatch } from './classifier-rule';
export { classifyError } from './classify-error';
export type { ErrorFacts } from './collect-error-facts';
export { collectErrorFacts } from './collect-error-facts';
export type { Classifier, ClassifierOptions } from './create-classifier';
export { createClassifier } from './create-classifier';
export type {
  ClassifyErrorOptions,
  ErrorClassification,
  ProviderName,
} from './error-classification';
export type { ErrorKind, KindedError } from './error-kind';
export { ERROR_KINDS, isErrorKind } from './error-kind';
export type { KindAction, KindPolicy } from './kind-policy';
export { isRetryable, KIND_POLICY } from './kind-policy';
export type { HeadersLike, ParseRetryAfterOptions } from './parse-retry-after';
export { parseRetryAfter } from './parse-retry-after';
export type { SanitizeForLogOptions } from './sanitize-for-log';
export { sanitizeForLog } from './sanitize-for-log';
export { userMessage } from './user-message';
