/**
 * What every call of one Keel model shares (the chain, health, settings, the observer) and what
 * one call keeps (its attempts), plus the small helpers that touch them: events that never throw,
 * health reports that never fail a call, sleeps that wake on abort.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { HealthReport, ProviderHealth } from '@keel/spec';
import type { AttemptRecord } from './attempt-record';
import type { ChainModel } from './candidate-chain';
import type { DecideSettings } from './decide';
import type { KeelModelEvent, KeelTimeoutOptions, StreamMode } from './keel-model-options';

export interface CallRuntime {
  chain: readonly ChainModel[];
  health: ProviderHealth;
  settings: DecideSettings;
  streamMode: StreamMode;
  timeouts: KeelTimeoutOptions;
  random: () => number;
  onEvent: ((event: KeelModelEvent) => void) | undefined;
}

/** One `doGenerate` / `doStream` call: its attempts so far, for events and provider metadata. */
export interface CallState {
  runtime: CallRuntime;
  signal: AbortSignal | undefined;
  attempts: AttemptRecord[];
  /** Attempts that sent a request, numbered from 1. */
  sent: number;
}

export function emit(state: CallState, event: KeelModelEvent): void {
  try {
    state.runtime.onEvent?.(event);
  } catch {
    // An observer never breaks a call.
  }
}

/** Reports to provider health; a failing health store never fails the call. */
export async function report(state: CallState, healthReport: HealthReport): Promise<void> {
  await state.runtime.health.report(healthReport).catch(() => undefined);
}

/**
 * Sleeps until `Date.now()` has moved `ms` on (a Node timer alone now and then wakes a
 * millisecond early, and the plan, reading `Date.now()`, would still see a key cooling); on
 * abort rejects at once with the signal's reason.
 */
export async function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  const until = Date.now() + Math.max(0, ms);
  const options = signal === undefined ? {} : { signal };
  try {
    do await sleepFor(Math.max(0, until - Date.now()), undefined, options);
    while (Date.now() < until);
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}
