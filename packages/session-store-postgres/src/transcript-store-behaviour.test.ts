/**
 * The behaviour suite against the file store of `@keel/session-fence`, the port's first
 * implementation: it shows that the suite asks for what the port promises and nothing of this
 * package's own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTranscriptStore } from '@keel/session-fence';
import { afterAll, beforeAll } from 'vitest';
import { describeSessionStorageBehaviour } from '../test/session-storage-behaviour';

let sessionsDir = '';
beforeAll(async () => {
  sessionsDir = await mkdtemp(join(tmpdir(), 'keel-file-store-'));
});
afterAll(async () => {
  await rm(sessionsDir, { recursive: true, force: true });
});

describeSessionStorageBehaviour('file store', {
  create: () => createTranscriptStore({ sessionsDir, fsync: false }),
});
