/** The file store passes the storage-port conformance suite of `@keel/testing`. */
import { join } from 'node:path';
import { describeSessionStorageConformance } from '@keel/testing/vitest';
import { makeTempDir } from '../test/support';
import { createTranscriptStore } from './transcript-store';

describeSessionStorageConformance(
  'createTranscriptStore',
  async () => {
    const { dir, cleanup } = await makeTempDir();
    return { storage: createTranscriptStore({ sessionsDir: join(dir, 'sessions') }), cleanup };
  },
  { turnClaims: true },
);

describeSessionStorageConformance(
  'createTranscriptStore without fsync, small digest windows',
  async () => {
    const { dir, cleanup } = await makeTempDir();
    const storage = createTranscriptStore({
      sessionsDir: join(dir, 'sessions'),
      fsync: false,
      tailDigestBytes: 64,
      headDigestBytes: 32,
    });
    return { storage, cleanup };
  },
);
