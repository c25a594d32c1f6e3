import type { SessionStorage, TranscriptEntry } from '@keel/spec';
import { expect } from 'vitest';
import type {
  SessionStorageConformanceOptions,
  SessionStorageUnderTest,
} from './storage-conformance-fixtures';

/** What every storage check is given. */
export interface StorageCheckContext {
  create: () => Promise<SessionStorageUnderTest>;
  options: Required<Pick<SessionStorageConformanceOptions, 'contendedLeaseTimeoutMs'>>;
}

/** One storage conformance check: a test name and what it asserts. */
export interface StorageCheck {
  name: string;
  run(context: StorageCheckContext): Promise<void>;
}

/** Runs `body` on a fresh storage and always cleans it up. */
export async function withStorage(
  context: StorageCheckContext,
  body: (storage: SessionStorage) => Promise<void>,
): Promise<void> {
  const { storage, cleanup } = await context.create();
  try {
    await body(storage);
  } finally {
    await cleanup();
  }
}

/** How a call ended, without throwing. */
export async function settle<T>(
  promise: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** The call rejected with a `session_takeover` error for `sessionId` naming `change`. */
export async function expectRefused(
  promise: Promise<unknown>,
  sessionId: string,
  changes: readonly string[],
): Promise<void> {
  const outcome = await settle(promise);
  expect(outcome.ok, 'the storage accepted a write it had to refuse').toBe(false);
  if (outcome.ok) return;
  expect(outcome.error, String(outcome.error)).toMatchObject({
    keelKind: 'session_takeover',
    phase: 'write',
    sessionId,
  });
  expect(changes, `change ${String((outcome.error as { change?: unknown }).change)}`).toContain(
    (outcome.error as { change?: unknown }).change,
  );
}

/** The call rejected because of its signal: with the signal's reason or an `AbortError`. */
export async function expectAborted(
  promise: Promise<unknown>,
  signal: AbortSignal,
  what: string,
): Promise<void> {
  const outcome = await settle(promise);
  expect(outcome.ok, `${what} resolved although its signal was aborted`).toBe(false);
  if (outcome.ok) return;
  const error = outcome.error;
  expect(
    error === signal.reason || (error instanceof Error && error.name === 'AbortError'),
    `${what} rejected with something other than the signal's reason or an AbortError: ${String(error)}`,
  ).toBe(true);
}

/** The ids of a session's entries, in order. */
export async function entryIds(storage: SessionStorage, sessionId: string): Promise<string[]> {
  return (await storage.read(sessionId)).entries.map((entry: TranscriptEntry) => entry.id);
}
