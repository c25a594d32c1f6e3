// A turn's lines are written at their levels (a failed attempt and a compaction producer's failure
// at `warn`, the rest at `info`), whatever the logger's level is set to, before or after it starts:
// logTurnEvent skips building a line the logger would drop, and must never skip one it would write.
import type { TurnEvent } from '@keel/spec';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createGatewayLogger } from './create-logger';
import { logTurnEvent } from './log-turn-event';

const base = { sessionId: 's1', turnId: 't1', at: 1 };
const target = { providerId: 'p', profileId: 'k', model: 'm' };

const EVENTS: TurnEvent[] = [
  { ...base, type: 'turn-start', messageId: 'm1' },
  { ...base, type: 'attempt-start', attempt: 1, target, probe: false },
  { ...base, type: 'model-event', attempt: 1, event: { type: 'text-delta', text: 'hi' } },
  { ...base, type: 'attempt-error', attempt: 1, target, kind: 'overloaded', status: 529 },
  { ...base, type: 'decision', label: 'final', reason: 'overloaded' },
  {
    ...base,
    type: 'health',
    event: { type: 'breaker-change', providerId: 'p', model: 'm', from: 'closed', to: 'open' },
  } as TurnEvent,
  {
    ...base,
    type: 'compaction',
    event: { type: 'compaction-fallback', producerId: 'a', nextProducerId: 'b', reason: 'x' },
  } as TurnEvent,
  {
    ...base,
    type: 'compaction',
    event: { type: 'compaction-paused', sessionId: 's1', consecutiveFailures: 3 },
  },
  {
    ...base,
    type: 'compaction',
    event: {
      type: 'compaction-end',
      sessionId: 's1',
      trigger: 'threshold',
      outcome: 'failed',
      attempts: [],
    },
  } as TurnEvent,
  {
    ...base,
    type: 'turn-end',
    outcome: { kind: 'reply', text: 'ok', messageId: 'm2', turnId: 't1', attempts: [] },
  },
];

/** The `msg` of each line written for EVENTS by a gateway logger at `level`. */
function linesAt(level: string, setLater = false): string[] {
  const written: string[] = [];
  const logger = createGatewayLogger({
    level: setLater ? 'info' : level,
    secrets: [],
    destination: { write: (line: string) => written.push(line) },
  });
  if (setLater) logger.level = level;
  for (const event of EVENTS) logTurnEvent(logger, event);
  return written.map((line) => (JSON.parse(line) as { msg: string }).msg);
}

describe('logTurnEvent levels', () => {
  it('writes every line of a turn at info and below', () => {
    const all = [
      'turn started',
      'attempt failed',
      'decision',
      'provider health changed',
      'compaction producer failed',
      'compaction ended',
      'turn ended',
    ];
    expect(linesAt('info')).toEqual(all);
    expect(linesAt('debug')).toEqual(all);
    expect(linesAt('trace')).toEqual(all);
  });

  it('writes only the failures at warn', () => {
    expect(linesAt('warn')).toEqual(['attempt failed', 'compaction producer failed']);
    expect(linesAt('warn', true)).toEqual(['attempt failed', 'compaction producer failed']);
  });

  it('writes nothing above warn', () => {
    expect(linesAt('error')).toEqual([]);
    expect(linesAt('silent')).toEqual([]);
  });

  it('follows a level changed after the logger was made', () => {
    expect(linesAt('debug', true)).toHaveLength(7);
    expect(linesAt('error', true)).toEqual([]);
  });

  it("leaves a custom level's threshold to the logger", () => {
    const written: string[] = [];
    const logger = pino(
      { customLevels: { notice: 35 }, level: 'notice' },
      { write: (line: string) => written.push(line) },
    );
    for (const event of EVENTS) logTurnEvent(logger, event);
    expect(written.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      'attempt failed',
      'compaction producer failed',
    ]);
  });
});
