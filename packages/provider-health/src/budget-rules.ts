/**
 * Budget rules (requests and tokens per minute, tokens per day) as pure steps over plain state:
 * the one copy that the in-memory ledger applies and that a shared store is held to. A window is
 * kept in time slices and a slice counts while any part of it lies inside the window, so over ANY
 * span of one window no more than the limit is admitted (a fixed window admits 2× at its boundary);
 * the price is that up to one slice's worth of budget frees a slice late. Reservations are taken
 * before the request leaves, so concurrent requests never overshoot together.
 *
 * A sliding window bounds grants by the time they were granted; a provider counts arrivals, and a
 * request arrives some variable delay after its grant. When a window's worth frees at once, a
 * window's worth is granted at once, and the jitter of those arrivals pushes more than the limit
 * into one window at the provider. `burst` paces `rpm` as well (a generic cell rate algorithm): at
 * most `burst` requests back to back, then one per `minute / rpm`, so what reaches the provider in
 * any minute exceeds the rpm by at most the requests of the delay's spread, not a window's worth.
 * `tpmBurst` paces `tpm` the same way by tokens: a request's estimated tokens push the key's token
 * pace on by `tokens × minute / tpm`, and it is granted while that pace stays within `tpmBurst`
 * tokens of now; a request larger than `tpmBurst` goes once the pace has caught up (never starved).
 * `pacedBudgetLimits` fills in the default pace of a provider budget (3 s worth of each limit).
 */
import { HealthConfigError } from './health-config-error';

/** A budget: each limit is optional; a missing one is not checked. */
export interface BudgetLimits {
  /** Requests per minute. */
  rpm?: number;
  /** Tokens (input + output) per minute. */
  tpm?: number;
  /** Tokens (input + output) per day. */
  tpd?: number;
  /**
   * With `rpm`: paces its requests — at most `burst` back to back, then one every
   * `minute / rpm` (besides the sliding window). Without it, `rpm` is only the window.
   */
  burst?: number;
  /**
   * With `tpm`: paces its tokens — at most `tpmBurst` tokens back to back, then `tpm` a minute
   * spread evenly (besides the sliding window). Without it, `tpm` is only the window.
   */
  tpmBurst?: number;
}

/** The share of a minute a provider budget's default pace lets through back to back: 3 s. */
const DEFAULT_PACE_SHARE = 20;

/**
 * A provider budget's limits with the default pace filled in: `burst` = max(1, ceil(rpm / 20))
 * and `tpmBurst` = max(1, ceil(tpm / 20)) — 3 s worth, so what arrives at the provider in any
 * minute stays within about 5 % of the limit. An explicit `burst` or `tpmBurst` stays; equal to
 * `rpm` (or `tpm`) it is the window alone.
 */
export function pacedBudgetLimits(limits: BudgetLimits): BudgetLimits {
  const paced = { ...limits };
  if (paced.rpm !== undefined && paced.burst === undefined) {
    paced.burst = Math.max(1, Math.ceil(paced.rpm / DEFAULT_PACE_SHARE));
  }
  if (paced.tpm !== undefined && paced.tpmBurst === undefined) {
    paced.tpmBurst = Math.max(1, Math.ceil(paced.tpm / DEFAULT_PACE_SHARE));
  }
  return paced;
}

/** What a budget window is measured in; every field has a default. */
export interface BudgetWindowOptions {
  /** The length of a "minute", default 60 000 ms (tests and benches may scale it down). */
  minuteMs?: number;
  /** The length of a "day", default 86 400 000 ms. */
  dayMs?: number;
}

export type BudgetWindows = Required<BudgetWindowOptions>;

/** Slices a minute window is kept in (60: one second each by default). */
export const MINUTE_SLICES = 60;
/** Slices a day window is kept in (24: one hour each by default). */
export const DAY_SLICES = 24;

/** What one time slice of a window holds: the requests and tokens reserved in it. */
export interface BudgetSlice {
  /** Clock ms, a multiple of the window's slice width. */
  start: number;
  requests: number;
  tokens: number;
}

/** One key's budget state, oldest slice first in each window. */
export interface BudgetRow {
  minute: BudgetSlice[];
  day: BudgetSlice[];
  /**
   * Paced `rpm` (`burst`): the clock ms at which the requests granted so far would all have been
   * spaced out (the theoretical arrival time); absent or past: nothing is queued.
   */
  paceAt?: number;
  /** Paced `tpm` (`tpmBurst`): the same, by tokens (each token `minute / tpm` ms). */
  tokenPaceAt?: number;
}

/** A granted reservation: where it was counted, so that `reconcileBudget` can correct it. */
export interface BudgetReservation {
  key: string;
  /** The tokens reserved (the estimate). */
  tokens: number;
  minuteStart: number;
  dayStart: number;
  /** Paced `rpm`: the ms the grant moved the pace on by (`minute / rpm`), given back on cancel. */
  paceMs?: number;
  /**
   * Paced `tpm`: the ms one token moves the token pace on by (`minute / tpm`); the reservation's
   * tokens moved it by `tokens × tokenMs`, corrected on reconcile and given back on cancel.
   */
  tokenMs?: number;
}

export type BudgetLimitName = 'rpm' | 'tpm' | 'tpd';

export type BudgetDecision =
  | { granted: true; reservation: BudgetReservation }
  /** Over `limit`: nothing was reserved; the request fits again in `waitMs`. */
  | { granted: false; limit: BudgetLimitName; waitMs: number };

/** What is left of each configured limit right now (limits not set are absent). */
export type BudgetRemaining = { [name in BudgetLimitName]?: number };

/** A row with nothing reserved. */
export function emptyBudgetRow(): BudgetRow {
  return { minute: [], day: [] };
}

/** Applies the defaults and refuses windows that cannot work (finite, above 0 ms). */
export function resolveBudgetWindows(options: BudgetWindowOptions = {}): BudgetWindows {
  return {
    minuteMs: positive('minuteMs', options.minuteMs, 60_000),
    dayMs: positive('dayMs', options.dayMs, 86_400_000),
  };
}

/** Refuses limits that cannot work: each set limit is a whole number from 1. */
export function checkBudgetLimits(limits: BudgetLimits, path = 'budgets'): BudgetLimits {
  for (const name of ['rpm', 'tpm', 'tpd', 'burst', 'tpmBurst'] as const) {
    const value = limits[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new HealthConfigError({
        message: `${path}.${name} must be a whole number from 1, not ${String(value)}`,
        path: `${path}.${name}`,
      });
    }
  }
  return limits;
}

/** The slice widths of the two windows, in whole milliseconds. */
export function budgetSliceMs(windows: BudgetWindows): { minute: number; day: number } {
  return {
    minute: Math.max(1, Math.ceil(windows.minuteMs / MINUTE_SLICES)),
    day: Math.max(1, Math.ceil(windows.dayMs / DAY_SLICES)),
  };
}

/**
 * Reserves one request of `tokens` estimated tokens against `limits` at `now`: counts it in the row
 * and grants it, or changes nothing and says which limit is exhausted and how long until the
 * request fits. A request larger than a token limit is admitted once its window is empty.
 */
export function reserveBudget(
  row: BudgetRow,
  key: string,
  limits: BudgetLimits,
  tokens: number,
  windows: BudgetWindows,
  now: number,
): BudgetDecision {
  const width = budgetSliceMs(windows);
  prune(row.minute, width.minute, windows.minuteMs, now);
  prune(row.day, width.day, windows.dayMs, now);
  const need = Math.max(0, Math.ceil(tokens));
  let worst: { limit: BudgetLimitName; waitMs: number } | undefined;
  const check = (limit: BudgetLimitName, waitMs: number) => {
    if (waitMs > 0 && (worst === undefined || waitMs > worst.waitMs)) worst = { limit, waitMs };
  };
  const minute = { slices: row.minute, width: width.minute, windowMs: windows.minuteMs };
  const paceMs =
    limits.rpm !== undefined && limits.burst !== undefined
      ? windows.minuteMs / limits.rpm
      : undefined;
  const tokenMs =
    limits.tpm !== undefined && limits.tpmBurst !== undefined
      ? windows.minuteMs / limits.tpm
      : undefined;
  if (limits.rpm !== undefined) {
    const windowWait = waitFor(minute, 'requests', limits.rpm, 1, now);
    const paceWait =
      paceMs === undefined ? 0 : paceWaitMs(row.paceAt, paceMs, (limits.burst ?? 1) * paceMs, now);
    check('rpm', Math.max(windowWait, paceWait));
  }
  if (limits.tpm !== undefined) {
    const windowWait = waitFor(minute, 'tokens', limits.tpm, need, now);
    const paceWait =
      tokenMs === undefined
        ? 0
        : paceWaitMs(row.tokenPaceAt, need * tokenMs, (limits.tpmBurst ?? 1) * tokenMs, now);
    check('tpm', Math.max(windowWait, paceWait));
  }
  if (limits.tpd !== undefined) {
    const day = { slices: row.day, width: width.day, windowMs: windows.dayMs };
    check('tpd', waitFor(day, 'tokens', limits.tpd, need, now));
  }
  if (worst !== undefined) return { granted: false, ...worst };
  const minuteStart = add(row.minute, width.minute, now, 1, need);
  const dayStart = add(row.day, width.day, now, 1, need);
  const reservation: BudgetReservation = { key, tokens: need, minuteStart, dayStart };
  if (paceMs !== undefined) {
    row.paceAt = Math.max(row.paceAt ?? now, now) + paceMs;
    reservation.paceMs = paceMs;
  }
  if (tokenMs !== undefined) {
    row.tokenPaceAt = Math.max(row.tokenPaceAt ?? now, now) + need * tokenMs;
    reservation.tokenMs = tokenMs;
  }
  return { granted: true, reservation };
}

/**
 * A pace (a generic cell rate algorithm): how long until a request that moves the pace on by
 * `stepMs` may go, 0 when it may now. It may go when the pace, moved on, runs at most
 * `toleranceMs` ahead of the clock (the burst); a step larger than the tolerance goes once the
 * pace has caught up with the clock, so a large request is never starved.
 */
function paceWaitMs(
  paceAt: number | undefined,
  stepMs: number,
  toleranceMs: number,
  now: number,
): number {
  if (paceAt === undefined) return 0;
  const ahead = paceAt - now - Math.max(0, toleranceMs - stepMs);
  return ahead > 0 ? Math.max(1, Math.ceil(ahead)) : 0;
}

/**
 * Corrects a reservation with the tokens the request really used (`usedTokens`, input + output):
 * the difference lands in the slices the reservation was counted in, while they still count.
 */
export function reconcileBudget(
  row: BudgetRow,
  reservation: BudgetReservation,
  usedTokens: number,
): void {
  const delta = Math.max(0, Math.ceil(usedTokens)) - reservation.tokens;
  if (delta === 0) return;
  if (reservation.tokenMs !== undefined && row.tokenPaceAt !== undefined) {
    row.tokenPaceAt += delta * reservation.tokenMs;
  }
  for (const [slices, start] of [
    [row.minute, reservation.minuteStart],
    [row.day, reservation.dayStart],
  ] as const) {
    const slice = slices.find((candidate) => candidate.start === start);
    if (slice !== undefined) slice.tokens = Math.max(0, slice.tokens + delta);
  }
}

/**
 * Counts tokens used by a request that holds no reservation here (another gateway admitted it, so
 * its request is counted there): `usedTokens` land in the current minute and day slices, with no
 * request, and move a paced `tpm`'s token pace on as a grant of that size would.
 */
export function recordBudget(
  row: BudgetRow,
  limits: BudgetLimits,
  usedTokens: number,
  windows: BudgetWindows,
  now: number,
): void {
  const tokens = Math.max(0, Math.ceil(usedTokens));
  if (tokens === 0) return;
  const width = budgetSliceMs(windows);
  add(row.minute, width.minute, now, 0, tokens);
  add(row.day, width.day, now, 0, tokens);
  if (limits.tpm !== undefined && limits.tpmBurst !== undefined) {
    row.tokenPaceAt =
      Math.max(row.tokenPaceAt ?? now, now) + tokens * (windows.minuteMs / limits.tpm);
  }
}

/**
 * Takes a reservation back whole (its request and its tokens) when its request never left: the
 * target turned out to be held back after all, or nothing was sent.
 */
export function cancelBudget(row: BudgetRow, reservation: BudgetReservation): void {
  for (const [slices, start] of [
    [row.minute, reservation.minuteStart],
    [row.day, reservation.dayStart],
  ] as const) {
    const slice = slices.find((candidate) => candidate.start === start);
    if (slice === undefined) continue;
    slice.requests = Math.max(0, slice.requests - 1);
    slice.tokens = Math.max(0, slice.tokens - reservation.tokens);
  }
  if (reservation.paceMs !== undefined && row.paceAt !== undefined) {
    row.paceAt -= reservation.paceMs;
  }
  if (reservation.tokenMs !== undefined && row.tokenPaceAt !== undefined) {
    row.tokenPaceAt -= reservation.tokens * reservation.tokenMs;
  }
}

/** What is left of each set limit at `now` (never below 0). */
export function budgetRemaining(
  row: BudgetRow,
  limits: BudgetLimits,
  windows: BudgetWindows,
  now: number,
): BudgetRemaining {
  const width = budgetSliceMs(windows);
  prune(row.minute, width.minute, windows.minuteMs, now);
  prune(row.day, width.day, windows.dayMs, now);
  const remaining: BudgetRemaining = {};
  if (limits.rpm !== undefined) remaining.rpm = left(limits.rpm, sum(row.minute, 'requests'));
  if (limits.tpm !== undefined) remaining.tpm = left(limits.tpm, sum(row.minute, 'tokens'));
  if (limits.tpd !== undefined) remaining.tpd = left(limits.tpd, sum(row.day, 'tokens'));
  return remaining;
}

interface Window {
  slices: BudgetSlice[];
  width: number;
  windowMs: number;
}

/**
 * How long until `need` more fits under `limit`: 0 when it fits now, else until enough of the
 * oldest slices have left the window (a slice leaves once its end is a whole window ago).
 */
function waitFor(
  window: Window,
  field: 'requests' | 'tokens',
  limit: number,
  need: number,
  now: number,
): number {
  const wanted = Math.min(need, limit);
  let used = sum(window.slices, field);
  if (used + wanted <= limit) return 0;
  for (const slice of window.slices) {
    used -= slice[field];
    if (used + wanted <= limit)
      return Math.max(1, slice.start + window.width + window.windowMs - now);
  }
  return 1;
}

function prune(slices: BudgetSlice[], width: number, windowMs: number, now: number): void {
  let gone = 0;
  while (gone < slices.length && (slices[gone] as BudgetSlice).start + width + windowMs <= now) {
    gone += 1;
  }
  if (gone > 0) slices.splice(0, gone);
}

function add(
  slices: BudgetSlice[],
  width: number,
  now: number,
  requests: number,
  tokens: number,
): number {
  const start = Math.floor(now / width) * width;
  const last = slices.at(-1);
  if (last !== undefined && last.start === start) {
    last.requests += requests;
    last.tokens += tokens;
  } else {
    slices.push({ start, requests, tokens });
  }
  return start;
}

function sum(slices: readonly BudgetSlice[], field: 'requests' | 'tokens'): number {
  let total = 0;
  for (const slice of slices) total += slice[field];
  return total;
}

function left(limit: number, used: number): number {
  return Math.max(0, limit - used);
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new HealthConfigError({
      message: `${name} must be a finite duration above 0 ms, not ${String(value)}`,
      path: name,
    });
  }
  return value;
}
