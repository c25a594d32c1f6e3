import { setFlagsFromString } from 'node:v8';
import type { TurnOutcome } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createEntryFactory } from './entries';

// V8's own answer to "is this object still a fast object, or a dictionary?" (issue 20: the
// transcript cache holds the entries a process wrote; a dictionary costs ~8× the heap).
setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('value', 'return %HasFastProperties(value)') as (
  value: object,
) => boolean;

const factory = createEntryFactory(
  () => 'id-1',
  () => 0,
);

describe('entry factory', () => {
  it('leaves undefined fields out of a turn end, keeping it a fast (non-dictionary) object', () => {
    const outcome = {
      kind: 'reply',
      turnId: 't1',
      messageId: 'm1',
      text: 'ok',
      model: 'mock/m',
      provider: 'mock',
    } as TurnOutcome;
    const end = factory.turnEnd(outcome, { text: false });
    expect(end).toEqual({
      type: 'turn',
      id: 'id-1',
      timestamp: new Date(0).toISOString(),
      phase: 'end',
      turnId: 't1',
      messageId: 'm1',
      outcome: 'reply',
      model: 'mock/m',
      provider: 'mock',
    });
    expect(Object.keys(end)).not.toContain('text');
    expect(hasFastProperties(end)).toBe(true);
  });

  it('keeps a message and a turn start fast when optional fields are passed as undefined', () => {
    const message = factory.message({
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
      turnId: 't1',
      clientMessageId: undefined,
      model: undefined,
    });
    expect(Object.keys(message)).toEqual([
      'type',
      'id',
      'timestamp',
      'messageId',
      'role',
      'content',
      'turnId',
    ]);
    expect(hasFastProperties(message)).toBe(true);
    const start = factory.turnStart({ turnId: 't1', messageId: 'm1', clientMessageId: undefined });
    expect('clientMessageId' in start).toBe(false);
    expect(hasFastProperties(start)).toBe(true);
  });
});
