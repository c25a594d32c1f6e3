import type { AttemptRecord, ErrorKind, ModelTarget, TurnOutcomeKind } from '@keel/spec';
import type { AttemptPlan } from './attempt-plan';
import { createAttemptPlan } from './attempt-plan';
import { buildModelChain } from './model-chain';
import type { Classification } from './orchestrator-options';
import type { TurnSettings } from './turn-runtime';

/** One turn's counters and candidates, across its model calls. */
export interface TurnProgress {
  plan: AttemptPlan;
  /** The model the turn runs on as the session's choice (a fallback never changes it). */
  selection: string;
  switches: number;
  waits: number;
  compactions: number;
  /** Provider requests sent. */
  requests: number;
  attempts: AttemptRecord[];
  lastError: Classification | undefined;
  lastTarget: ModelTarget | undefined;
  /** The last target provider health made the turn skip, and why. */
  lastSkip: { target: ModelTarget; kind: 'overloaded' | 'rate_limit' } | undefined;
}

/** How a turn ends, before it is stamped with its ids. */
export interface TurnEnding {
  kind: TurnOutcomeKind;
  text: string;
  errorKind?: ErrorKind;
  retryAfterMs?: number;
  staleReply?: string;
  target?: ModelTarget;
}

export function createTurnProgress(
  selection: string,
  settings: TurnSettings,
  now: () => number,
): TurnProgress {
  return {
    plan: planFor(selection, settings, now),
    selection,
    switches: 0,
    waits: 0,
    compactions: 0,
    requests: 0,
    attempts: [],
    lastError: undefined,
    lastTarget: undefined,
    lastSkip: undefined,
  };
}

/**
 * The candidates for a selection: it, then the configured chain (the primary, then the
 * fallbacks), each once: a selection never hides a healthy primary.
 */
export function planFor(selection: string, settings: TurnSettings, now: () => number): AttemptPlan {
  const chain = [settings.primary, ...settings.fallbacks];
  return createAttemptPlan(buildModelChain(selection, chain, settings.providers), now);
}

/**
 * The most provider requests one turn can make: each step's successful call, plus the failures a
 * pass allows (every profile of every candidate model, each at most `1 + maxRetries` times), for
 * each pass a turn can make (the first, one per wait, one after a compaction, one per switch).
 * The candidate models are the configured chain (primary and fallbacks) and, when a session may
 * select a model outside it (a `models.settings` key), the one with the most profiles.
 */
export function requestCeiling(settings: Omit<TurnSettings, 'requestCeiling' | 'copy'>): number {
  const profilesOf = new Map(settings.providers.map((p) => [p.id, p.profiles.length]));
  const profiles = (reference: string) =>
    profilesOf.get(reference.slice(0, reference.indexOf('/'))) ?? 0;
  const chain = new Set([settings.primary, ...settings.fallbacks]);
  const inChain = chain.size === 0 ? 0 : [...chain].reduce((sum, ref) => sum + profiles(ref), 0);
  const outside = [...settings.selectable].filter((reference) => !chain.has(reference));
  const selected = Math.max(0, ...outside.map(profiles));
  const passes = 1 + settings.maxWaits + 1 + settings.maxModelSwitches;
  return settings.maxSteps + passes * (selected + inChain) * (1 + settings.maxRetries);
}
