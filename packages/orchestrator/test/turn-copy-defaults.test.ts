// The default user-facing copy (turn-copy.ts): every outcome has its own text, a whole sentence a
// user can read (an empty default would end a turn with a blank reply), and the defaults are frozen.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TURN_COPY } from '../src/turn-copy';

const members = [
  'restartNotice',
  'stepCapReached',
  'modelSwitchLimit',
  'compactionFailed',
  'deadlineReached',
  'replyTooLarge',
] as const;

describe('DEFAULT_TURN_COPY', () => {
  it('has a non-empty sentence for every outcome', () => {
    for (const member of members) {
      const text = DEFAULT_TURN_COPY[member];
      expect(text, member).toMatch(/^[A-Z].{19,}\.$/);
    }
  });

  it('says something different for each outcome, and cannot be changed', () => {
    expect(new Set(members.map((member) => DEFAULT_TURN_COPY[member])).size).toBe(members.length);
    expect(Object.keys(DEFAULT_TURN_COPY).sort()).toEqual([...members].sort());
    expect(Object.isFrozen(DEFAULT_TURN_COPY)).toBe(true);
  });
});
