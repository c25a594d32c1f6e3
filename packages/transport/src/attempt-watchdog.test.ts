import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAttemptWatchdog } from './attempt-watchdog';
import { TransportTimeoutError } from './transport-error';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('createAttemptWatchdog', () => {
  it('fires the first-token clock unless an event came first', () => {
    const early = createAttemptWatchdog({ firstTokenTimeoutMs: 100 });
    early.firstEvent();
    vi.advanceTimersByTime(500);
    expect(early.signal.aborted).toBe(false);
    early.dispose();

    const late = createAttemptWatchdog({ firstTokenTimeoutMs: 100 });
    vi.advanceTimersByTime(100);
    expect(late.signal.aborted).toBe(true);
    expect(late.timeout).toBeInstanceOf(TransportTimeoutError);
    expect(late.timeout).toMatchObject({ timeoutKind: 'first-token', timeoutMs: 100 });
    expect(late.signal.reason).toBe(late.timeout);
    late.dispose();
  });

  it('runs the stall clock only while waiting for a chunk', () => {
    const watchdog = createAttemptWatchdog({ stallTimeoutMs: 100 });
    vi.advanceTimersByTime(1_000);
    expect(watchdog.signal.aborted).toBe(false);
    watchdog.waitForChunk();
    vi.advanceTimersByTime(90);
    watchdog.chunkReceived();
    vi.advanceTimersByTime(1_000);
    expect(watchdog.signal.aborted).toBe(false);
    watchdog.waitForChunk();
    vi.advanceTimersByTime(100);
    expect(watchdog.timeout).toMatchObject({ keelKind: 'timeout', timeoutKind: 'stall' });
    watchdog.dispose();
  });

  it('arms one stall timer per attempt, not one per chunk, and still times each wait', () => {
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    const watchdog = createAttemptWatchdog({ stallTimeoutMs: 100 });
    for (let chunk = 0; chunk < 5; chunk += 1) {
      watchdog.waitForChunk();
      vi.advanceTimersByTime(99);
      watchdog.chunkReceived();
      // Past the first wait's deadline while no chunk is awaited: nothing fires.
      vi.advanceTimersByTime(50);
    }
    expect(watchdog.signal.aborted).toBe(false);
    expect(setTimer).toHaveBeenCalledTimes(1);
    // Each wait gets the whole stall time from its start.
    watchdog.waitForChunk();
    vi.advanceTimersByTime(99);
    expect(watchdog.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(watchdog.timeout).toMatchObject({ timeoutKind: 'stall', timeoutMs: 100 });
    watchdog.dispose();
    setTimer.mockRestore();
  });

  it('fires the attempt clock whatever happens in between', () => {
    const watchdog = createAttemptWatchdog({ timeoutMs: 300, stallTimeoutMs: 200 });
    for (let i = 0; i < 5; i += 1) {
      watchdog.waitForChunk();
      vi.advanceTimersByTime(60);
      watchdog.chunkReceived();
      watchdog.firstEvent();
    }
    expect(watchdog.timeout).toMatchObject({ timeoutKind: 'attempt', timeoutMs: 300 });
    watchdog.dispose();
  });

  it('follows the caller signal without calling it a timeout', () => {
    const controller = new AbortController();
    const watchdog = createAttemptWatchdog({ signal: controller.signal, timeoutMs: 100 });
    controller.abort(new Error('user stop'));
    expect(watchdog.signal.aborted).toBe(true);
    expect(watchdog.timeout).toBeUndefined();
    vi.advanceTimersByTime(1_000);
    expect(watchdog.timeout).toBeUndefined();
    watchdog.dispose();
    expect(createAttemptWatchdog({ signal: AbortSignal.abort() }).signal.aborted).toBe(true);
  });

  it('stops every clock on dispose', () => {
    const watchdog = createAttemptWatchdog({
      timeoutMs: 50,
      firstTokenTimeoutMs: 50,
      stallTimeoutMs: 50,
    });
    watchdog.waitForChunk();
    watchdog.dispose();
    vi.advanceTimersByTime(1_000);
    expect(watchdog.signal.aborted).toBe(false);
  });
});
