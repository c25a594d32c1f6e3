/**
 * A store keeps the lock of each of its recently used sessions, with the spare lock file a
 * released hold leaves (see `createCandidates`), for as many sessions as a gateway keeps active:
 * with 1 000 sessions served in turn, a hold creates no lock file and a release removes none
 * (creating and removing one writes the directory each time, the dearest steps of a hold).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingFileSystem, useTempDir } from '../test/support';
import { createTranscriptStoreWith } from './transcript-store';

const temp = useTempDir();
const SESSIONS = 1_000;

describe('session locks kept per store', () => {
  it('1 000 sessions held in turn reuse their lock files: none created or removed', async () => {
    const { fileSystem, calls } = recordingFileSystem();
    const store = createTranscriptStoreWith(fileSystem, { sessionsDir: join(temp.path, 's') });
    const holdEach = async () => {
      for (let index = 0; index < SESSIONS; index += 1)
        await (await store.lease(`session-${index}`)).release();
    };
    // A lock's private file: `<session>.lock.<token>.tmp`, linked to `<session>.lock` while held.
    const lockFiles = (method: string, from: number) =>
      calls
        .slice(from)
        .filter((call) => call.method === method && /\.lock\..+\.tmp$/.test(call.path)).length;
    await holdEach();
    expect(lockFiles('open', 0)).toBe(SESSIONS);
    const second = calls.length;
    await holdEach();
    expect(lockFiles('open', second)).toBe(0);
    expect(lockFiles('unlink', second)).toBe(0);
    expect(lockFiles('close', second)).toBe(0);
  }, 60_000);
});
