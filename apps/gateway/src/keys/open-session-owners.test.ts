import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSessionOwners } from './open-session-owners';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'keel-owners-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openSessionOwners', () => {
  it('gives a session to the first key that claims it, and to no other', async () => {
    const owners = await openSessionOwners({ file: join(dir, 'state', 'owners.jsonl') });
    const [first, second] = await Promise.all([
      owners.claim('s-1', 'alpha'),
      owners.claim('s-1', 'beta'),
    ]);
    expect([first, second]).toEqual([true, false]);
    expect(await owners.claim('s-1', 'alpha')).toBe(true);
    expect(owners.ownerOf('s-1')).toBe('alpha');
    expect(owners.ownerOf('s-2')).toBeUndefined();
  });

  it('writes each owner as one line before the claim resolves, and reads them back', async () => {
    const file = join(dir, 'owners.jsonl');
    const owners = await openSessionOwners({ file });
    await owners.claim('s-1', 'alpha');
    await owners.claim('s-2', 'beta');
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { version: 1, sessionId: 's-1', key: 'alpha' },
      { version: 1, sessionId: 's-2', key: 'beta' },
    ]);
    await writeFile(
      file,
      `${lines.join('\n')}\nnot json\n{"version":9,"sessionId":"x","key":"y"}\n`,
    );
    const reopened = await openSessionOwners({ file });
    expect(reopened.ownerOf('s-1')).toBe('alpha');
    expect(reopened.ownerOf('s-2')).toBe('beta');
    expect(reopened.ownerOf('x')).toBeUndefined();
    expect(await reopened.claim('s-2', 'alpha')).toBe(false);
    expect([...(await reopened.sessionsOf('alpha'))]).toEqual(['s-1']);
    expect([...(await reopened.sessionsOf('beta'))]).toEqual(['s-2']);
    expect((await reopened.sessionsOf('gamma')).size).toBe(0);
  });

  it('claims nothing when its line cannot be written', async () => {
    // A directory where the file should be: every append fails.
    const file = join(dir, 'owners.jsonl');
    const owners = await openSessionOwners({ file: join(file, 'inside') });
    await rm(file, { recursive: true, force: true });
    await writeFile(file, 'a file where the directory was');
    await expect(owners.claim('s-1', 'alpha')).rejects.toThrow();
    expect(owners.ownerOf('s-1')).toBeUndefined();
    const memory = await openSessionOwners();
    expect(await memory.claim('s-1', 'beta')).toBe(true);
  });
});
