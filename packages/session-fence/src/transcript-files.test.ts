/**
 * Transcripts kept open between operations (`createTranscriptFiles`): up to
 * `MAX_IDLE_TRANSCRIPTS` idle descriptors, so a store serving 64 sessions in turn opens no
 * transcript again; one more than the bound closes the least recently used descriptor.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordingFileSystem, textMessage, useTempDir } from '../test/support';
import { MAX_IDLE_TRANSCRIPTS } from './transcript-files';
import { createTranscriptStoreWith } from './transcript-store';

const temp = useTempDir();

function recordedStore(directory: string) {
  const { fileSystem, calls } = recordingFileSystem();
  const store = createTranscriptStoreWith(fileSystem, {
    sessionsDir: join(temp.path, directory),
    fsync: false,
  });
  const transcriptCalls = (method: string, sessions: string[]) => {
    const paths = new Set(sessions.map((session) => store.transcriptPath(session)));
    return calls.filter((call) => call.method === method && paths.has(call.path)).length;
  };
  return { store, transcriptCalls };
}

const sessionIds = (count: number) => Array.from({ length: count }, (_, index) => `s${index}`);

describe('transcripts kept open between operations', () => {
  it('serving 64 sessions in turn opens and closes no transcript again', async () => {
    const { store, transcriptCalls } = recordedStore('many');
    // A gateway with 64 active sessions (the gateway-overhead bench) keeps every transcript open.
    const sessions = sessionIds(64);
    for (const session of sessions) await store.append(session, [textMessage('1', 'first')]);
    const opened = transcriptCalls('open', sessions);
    expect(opened).toBeGreaterThanOrEqual(64);
    for (const session of sessions) {
      expect((await store.state(session)).exists).toBe(true);
      await store.append(session, [textMessage('2', 'second')]);
    }
    expect(transcriptCalls('open', sessions)).toBe(opened);
    expect(transcriptCalls('close', sessions)).toBe(0);
  });

  it('one session more closes the least recently used transcript, and only it', async () => {
    const { store, transcriptCalls } = recordedStore('one-more');
    const sessions = sessionIds(MAX_IDLE_TRANSCRIPTS + 1);
    for (const session of sessions) await store.append(session, [textMessage('1', 'first')]);
    expect(transcriptCalls('close', sessions)).toBe(1);
    expect(transcriptCalls('close', [sessions[0] as string])).toBe(1);
    // The closed one is opened again; the others are still open.
    const opened = transcriptCalls('open', sessions);
    expect((await store.state(sessions[0] as string)).exists).toBe(true);
    expect(transcriptCalls('open', sessions)).toBe(opened + 1);
    expect((await store.state(sessions.at(-1) as string)).exists).toBe(true);
    expect(transcriptCalls('open', sessions)).toBe(opened + 1);
  });
});
