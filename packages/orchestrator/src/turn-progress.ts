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
 * The most provider requests one turn can make, exactly: some fault sequence reaches it. A plan
 * (the turn's first, and a new one per live switch) gives each profile of each candidate model
 * `maxRetries` `retry_same` failures, and in each pass one failure more that takes the profile out
 * of that pass (blocked, rested, dropped); passes are one per plan plus one per wait. One overflow
 * compaction may retry the same target once more. Every step before the last answers once; the
 * last call either answers or fails for good, so the turn's requests are the failures plus
 * `maxSteps − 1`. The candidate models are the configured chain (primary and fallbacks) and, when
 * a session may select a model outside it (a `models.settings` key), the one with the most
 * profiles.
 */
export function requestCeiling(
  settings: Omit<TurnSettings, 'requestCeiling' | 'copy'>,
  options: { compacts?: boolean } = {},
): number {
  const profilesOf = new Map(settings.providers.map((p) => [p.id, p.profiles.length]));
  const profiles = (reference: string) =>
    profilesOf.get(reference.slice(0, reference.indexOf('/'))) ?? 0;
  const chain = new Set([settings.primary, ...settings.fallbacks]);
  const inChain = [...chain].reduce((sum, ref) => sum + profiles(ref), 0);
  const outside = [...settings.selectable].filter((reference) => !chain.has(reference));
  const selected = Math.max(0, ...outside.map(profiles));
  const plans = 1 + settings.maxModelSwitches;
  const failures =
    (selected + inChain) * (plans * (1 + settings.maxRetries) + settings.maxWaits) +
    (options.compacts === true ? 1 : 0);
  return Math.max(0, settings.maxSteps - 1 + failures);
}
