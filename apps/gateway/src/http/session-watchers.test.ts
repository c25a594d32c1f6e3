import { describe, expect, it } from 'vitest';
import { createSessionWatchers } from './session-watchers';

describe('createSessionWatchers', () => {
  it('a session is watched while any of its followers stays', () => {
    const watchers = createSessionWatchers();
    expect(watchers.watched('a')).toBe(false);
    const first = watchers.watch('a');
    const second = watchers.watch('a');
    expect(watchers.watched('a')).toBe(true);
    expect(watchers.watched('b')).toBe(false);
    first();
    // Stopping twice counts once: the other follower still watches.
    first();
    expect(watchers.watched('a')).toBe(true);
    second();
    expect(watchers.watched('a')).toBe(false);
  });

  it('a follower of every session watches them all until it stops', () => {
    const watchers = createSessionWatchers();
    const one = watchers.watch('a');
    const all = watchers.watch(undefined);
    expect(watchers.watched('b')).toBe(true);
    all();
    all();
    expect(watchers.watched('b')).toBe(false);
    expect(watchers.watched('a')).toBe(true);
    one();
    expect(watchers.watched('a')).toBe(false);
  });
});
