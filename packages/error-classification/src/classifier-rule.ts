import type { ErrorFacts } from './collect-error-facts';
import type { ErrorClassification } from './error-classification';
import type { ErrorKind } from './error-kind';

/** What a rule sees besides the error itself. */
export interface RuleContext {
  /** The caller's signal, as passed to `classify`. */
  readonly signal?: AbortSignal;
  /** Everything read from the error and its cause chain. */
  readonly facts: ErrorFacts;
}

/**
 * A rule's verdict: a bare kind, or a kind with fields that override what the classifier
 * found (`retryable` defaults to the kind's policy). A field that is not valid (see the README)
 * is dropped and filled from the facts; the kind stands.
 */
export type RuleMatch =
  | ErrorKind
  | ({ kind: ErrorKind } & Partial<Omit<ErrorClassification, 'kind'>>);

/** One classification rule. The first rule that returns a match decides. */
export interface ClassifierRule {
  /** Shown in tests and debugging; unique per classifier by convention. */
  readonly name: string;
  /** Return a match to decide the kind, or `undefined` to let later rules look. Must not throw. */
  match(error: unknown, context: RuleContext): RuleMatch | undefined;
}
