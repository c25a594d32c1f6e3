import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { definePlugin } from '@keel/orchestrator';
import type { TurnEvent } from '@keel/spec';

export interface DecisionLogOptions {
  /** The JSON-lines file each decision is appended to; its folder is created. */
  path: string;
}

/** One line of the log: when, which session and turn, what was decided, why, from where to where. */
export interface DecisionLogLine {
  at: string;
  sessionId: string;
  turnId: string;
  label: string;
  reason: string;
  from?: string;
  to?: string;
  delayMs?: number;
}

function targetName(target: { providerId: string; profileId: string; model: string } | undefined) {
  return target === undefined
    ? undefined
    : `${target.providerId}/${target.model}#${target.profileId}`;
}

/** The line for a decision event, or `undefined` for every other event. */
export function decisionLine(event: TurnEvent): DecisionLogLine | undefined {
  if (event.type !== 'decision') return undefined;
  const from = targetName(event.from);
  const to = targetName(event.to);
  return {
    at: new Date(event.at).toISOString(),
    sessionId: event.sessionId,
    turnId: event.turnId,
    label: event.label,
    reason: event.reason,
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(event.delayMs === undefined ? {} : { delayMs: event.delayMs }),
  };
}

/**
 * A Keel plugin that writes every decision a turn takes to a JSON-lines file — `rotate_profile`,
 * `fallback_model`, `wait`, `resend`… with its reason. An observer: it only watches, and a failure
 * to write is the gateway's to log and count, never the turn's problem.
 */
export const decisionLogPlugin = definePlugin((options: DecisionLogOptions) => {
  if (typeof options?.path !== 'string' || options.path === '') {
    throw new TypeError('decision-log needs options.path, the file to write');
  }
  mkdirSync(dirname(options.path), { recursive: true });
  return {
    specificationVersion: 'v1' as const,
    name: 'decision-log',
    onEvent(event: TurnEvent) {
      const line = decisionLine(event);
      if (line !== undefined) appendFileSync(options.path, `${JSON.stringify(line)}\n`);
    },
  };
});
