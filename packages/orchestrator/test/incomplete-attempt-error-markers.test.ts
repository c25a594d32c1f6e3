// A cut-short stream's error (incomplete-attempt-error.ts): its name and message say what happened,
// and it is recognised by its `Symbol.for` marker, also when it comes from another copy of the package.
import { describe, expect, it } from 'vitest';
import { IncompleteAttemptError } from '../src/incomplete-attempt-error';
import { OrchestratorError } from '../src/orchestrator-error';

const marker = Symbol.for('keel.error.IncompleteAttemptError');

describe('IncompleteAttemptError', () => {
  const error = new IncompleteAttemptError();

  it('says the stream ended without a finish event, as a connection error', () => {
    expect(error.name).toBe('IncompleteAttemptError');
    expect(error.message).toBe('The model stream ended without a finish event');
    expect(error.keelKind).toBe('connection');
    expect((error as unknown as Record<symbol, unknown>)[marker]).toBe(true);
    expect(OrchestratorError.isInstance(error)).toBe(true);
  });

  it('isInstance accepts its own errors and a marked object from another copy, nothing else', () => {
    expect(IncompleteAttemptError.isInstance(error)).toBe(true);
    expect(IncompleteAttemptError.isInstance({ [marker]: true })).toBe(true);
    expect(IncompleteAttemptError.isInstance(new OrchestratorError({ message: 'no' }))).toBe(false);
    expect(IncompleteAttemptError.isInstance(null)).toBe(false);
  });
});
