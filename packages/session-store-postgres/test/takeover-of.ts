import { classifyError } from '@keel/error-classification';
import { expect } from 'vitest';

/** The error `promise` rejects with, checked to be a `session_takeover` (it names the change). */
export async function takeoverOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, 'expected a session_takeover rejection').toBeInstanceOf(Error);
  expect(classifyError(error).kind).toBe('session_takeover');
  return error as Error & { change: string; phase: string; sessionId: string };
}
