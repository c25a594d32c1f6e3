import { classifyError } from '@keel/error-classification';
import { describe, expect, it } from 'vitest';
import { ClaudeCliError } from './claude-cli/claude-cli-error';
import {
  IncompleteStreamError,
  MalformedResponseError,
  MissingSdkError,
  TransportAbortError,
  TransportError,
  TransportTimeoutError,
  UnsupportedRequestError,
} from './transport-error';

const message = 'm';
/** One instance of every error class the package raises, by class. */
const instances = [
  [TransportError, new TransportError({ message })],
  [
    TransportTimeoutError,
    new TransportTimeoutError({ message, timeoutKind: 'stall', timeoutMs: 1 }),
  ],
  [TransportAbortError, new TransportAbortError({ message })],
  [IncompleteStreamError, new IncompleteStreamError({ message })],
  [UnsupportedRequestError, new UnsupportedRequestError({ message })],
  [MalformedResponseError, new MalformedResponseError({ message })],
  [MissingSdkError, new MissingSdkError({ message, packageName: 'openai' })],
  [ClaudeCliError, new ClaudeCliError({ message, keelKind: 'unknown' })],
] as const;

describe('error classes', () => {
  it.each(instances.map(([errorClass]) => [errorClass.name, errorClass] as const))(
    '%s.isInstance matches its own instances and subclasses, never a sibling',
    (_name, errorClass) => {
      for (const [, error] of instances) {
        // `instanceof` is right within one package copy; `isInstance` must agree with it.
        expect(errorClass.isInstance(error), `${errorClass.name} vs ${error.name}`).toBe(
          error instanceof errorClass,
        );
      }
      expect(errorClass.isInstance(new Error(message))).toBe(false);
      expect(errorClass.isInstance({ keelKind: 'timeout' })).toBe(false);
      expect(errorClass.isInstance(undefined)).toBe(false);
    },
  );

  it('isInstance recognises an error of another copy of the package by its marker', () => {
    const fromAnotherCopy = Object.assign(new Error(message), {
      [Symbol.for('keel.error.TransportTimeoutError')]: true,
      [Symbol.for('keel.error.TransportError')]: true,
    });
    expect(TransportTimeoutError.isInstance(fromAnotherCopy)).toBe(true);
    expect(TransportError.isInstance(fromAnotherCopy)).toBe(true);
    expect(TransportAbortError.isInstance(fromAnotherCopy)).toBe(false);
  });

  it('MissingSdkError and MalformedResponseError carry the kinds the classifier reports', () => {
    const missing = new MissingSdkError({ message, packageName: 'openai' });
    const malformed = new MalformedResponseError({ message });
    expect(missing.keelKind).toBe('model_not_found');
    expect(malformed.keelKind).toBe('server_error');
    expect(classifyError(missing)).toMatchObject({ kind: 'model_not_found', retryable: false });
    expect(classifyError(malformed)).toMatchObject({ kind: 'server_error', retryable: true });
  });
});
