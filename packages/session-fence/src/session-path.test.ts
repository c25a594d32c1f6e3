import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidSessionIdError } from './session-fence-error';
import { createSessionPath } from './session-path';

const DIRECTORIES = [
  '/',
  '.',
  '',
  './',
  'sessions',
  'sessions/',
  '/var/keel//sessions/',
  '/a/b/../c',
  '../up',
  'C:',
  '~',
];
const IDS = ['a', 'Session-1', 'x.y_z', 'a..b', '9'.repeat(128)];

describe('createSessionPath', () => {
  it('makes the path join makes, for every kind of sessions directory', () => {
    for (const directory of DIRECTORIES) {
      const sessionPath = createSessionPath(directory);
      for (const id of IDS)
        for (const extension of ['.jsonl', '.lock', '.turn.lock', ''])
          expect(sessionPath(id, extension), `${directory} + ${id}${extension}`).toBe(
            join(directory, `${id}${extension}`),
          );
    }
  });

  it('refuses an id that is not one plain segment, whatever the directory', () => {
    const sessionPath = createSessionPath('/var/keel');
    for (const id of ['..', '.', '../etc', 'a/b', 'a\\b', '', '-a', 'a'.repeat(129)])
      expect(() => sessionPath(id, '.jsonl')).toThrow(InvalidSessionIdError);
  });
});
