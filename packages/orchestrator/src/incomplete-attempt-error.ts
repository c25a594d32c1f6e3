import { OrchestratorError } from './orchestrator-error';

const MARKER = Symbol.for('keel.error.IncompleteAttemptError');

/** A model stream ended without its `finish` event: the answer was cut short (`connection`). */
export class IncompleteAttemptError extends OrchestratorError {
  readonly [MARKER] = true;
  override readonly name: string = 'IncompleteAttemptError';
  readonly keelKind = 'connection' as const;

  constructor() {
    super({ message: 'The model stream ended without a finish event' });
  }

  static override isInstance(error: unknown): error is IncompleteAttemptError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
