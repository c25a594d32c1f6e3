import { createClassifier } from './create-classifier';
import type { ClassifyErrorOptions, ErrorClassification } from './error-classification';

const defaultClassifier = createClassifier();

/**
 * Classifies any error from an LLM call (SDK errors, undici/Node errors, serialized bodies,
 * strings, wrappers with a `cause`) into one `ErrorKind` plus the facts found on the way.
 * `caller_abort` only when `options.signal` is aborted.
 */
export function classifyError(error: unknown, options?: ClassifyErrorOptions): ErrorClassification {
  return defaultClassifier.classify(error, options);
}
