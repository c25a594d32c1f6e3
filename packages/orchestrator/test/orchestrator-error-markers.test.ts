// The orchestrator's errors (orchestrator-error.ts) are recognised by their `Symbol.for` marker, so a
// copy of the package loaded twice still recognises the other copy's errors; an error without a
// cause carries no `cause` member at all.
import { describe, expect, it } from 'vitest';
import { OrchestratorConfigError, OrchestratorError } from '../src/orchestrator-error';

const baseMarker = Symbol.for('keel.error.OrchestratorError');
const configMarker = Symbol.for('keel.error.OrchestratorConfigError');

describe('OrchestratorError', () => {
  it('isInstance accepts its own errors and a marked object from another copy, nothing else', () => {
    expect(OrchestratorError.isInstance(new OrchestratorError({ message: 'no' }))).toBe(true);
    expect(OrchestratorError.isInstance({ [baseMarker]: true })).toBe(true);
    expect(OrchestratorError.isInstance(new Error('no'))).toBe(false);
    expect(OrchestratorError.isInstance({ [configMarker]: true })).toBe(false);
    expect(OrchestratorError.isInstance(null)).toBe(false);
    expect(OrchestratorError.isInstance('OrchestratorError')).toBe(false);
  });

  it('has a cause member only when given one', () => {
    const cause = new Error('below');
    expect(Object.hasOwn(new OrchestratorError({ message: 'no' }), 'cause')).toBe(false);
    expect(new OrchestratorError({ message: 'no', cause }).cause).toBe(cause);
  });
});

describe('OrchestratorConfigError', () => {
  const error = new OrchestratorConfigError({ message: 'bad', path: 'models' });

  it('carries the config marker as true, its path and kind', () => {
    expect((error as unknown as Record<symbol, unknown>)[configMarker]).toBe(true);
    expect((error as unknown as Record<symbol, unknown>)[baseMarker]).toBe(true);
    expect(error).toMatchObject({ name: 'OrchestratorConfigError', path: 'models' });
    expect(error.keelKind).toBe('invalid_request');
  });

  it('isInstance accepts its own errors and a marked object from another copy, nothing else', () => {
    expect(OrchestratorConfigError.isInstance(error)).toBe(true);
    expect(OrchestratorConfigError.isInstance({ [configMarker]: true })).toBe(true);
    expect(OrchestratorConfigError.isInstance(new OrchestratorError({ message: 'no' }))).toBe(
      false,
    );
    expect(OrchestratorConfigError.isInstance({ [baseMarker]: true })).toBe(false);
    expect(OrchestratorConfigError.isInstance(null)).toBe(false);
  });
});
