/**
 * Run under `strace` by `orchestrator-overhead.bench.ts`: TURNS one-message turns of the
 * orchestrator on the file store (fsync on) with a model port that answers at once, after a
 * warm-up, between two marker `stat`s of paths that do not exist (`MARKER`.start / .end).
 */
import { statSync } from 'node:fs';
import { createOrchestrator } from '@keel/orchestrator';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { ModelPort } from '@keel/spec';

const { SESSIONS_DIR, MARKER } = process.env;
const TURNS = Number(process.env.TURNS ?? '200');
const SESSIONS = 8;
const port: ModelPort = {
  specificationVersion: 'v1',
  provider: 'null',
  api: 'null',
  capabilities: { runsOwnTools: false, bindsSessions: false },
  async *stream() {
    yield { type: 'text-delta', text: 'ok' };
    yield { type: 'finish', reason: 'stop' };
  },
};
const storage = createTranscriptStore({ sessionsDir: SESSIONS_DIR ?? '', fsync: true });
const orchestrator = createOrchestrator({
  storage,
  fences: (sessionId) => createSessionFence({ storage, sessionId }),
  providers: [{ id: 'null', profiles: [{ id: 'main' }] }],
  models: { primary: 'null/model' },
  router: { connect: () => port },
});
const mark = (name: string) => {
  try {
    statSync(`${MARKER}.${name}`);
  } catch {
    // The marker never exists: only its system call matters.
  }
};
const turn = async (index: number) => {
  const outcome = await orchestrator.runTurn({
    sessionId: `s${index % SESSIONS}`,
    input: `m${index}`,
  });
  if (outcome.kind !== 'reply') throw new Error(`turn ended ${outcome.kind}`);
};
for (let index = 0; index < 3 * SESSIONS; index += 1) await turn(index);
mark('start');
for (let index = 0; index < TURNS; index += 1) await turn(index);
mark('end');
await orchestrator.shutdown({ graceMs: 0 });
