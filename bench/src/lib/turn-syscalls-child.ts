/**
 * Run under `strace` (`turn-syscalls.ts`) by `orchestrator-overhead.bench.ts` and
 * `turn-scale.bench.ts`: TURNS one-message turns of the orchestrator on the file store (fsync on),
 * with a model port that answers at once, to the next of SESSIONS sessions, between two marker
 * `stat`s of paths that do not exist (`MARKER`.start / .end). Before the marked turns: with
 * `SEED=1` each session is seeded as turn-scale seeds them and visited once (a steady state over
 * many sessions); without, three warm-up turns per session.
 */
import { mkdirSync, statSync } from 'node:fs';
import { createOrchestrator } from '@keel/orchestrator';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { ModelPort } from '@keel/spec';
import { writeSyntheticTranscript } from './synthetic-transcript';

const { SESSIONS_DIR, MARKER } = process.env;
const TURNS = Number(process.env.TURNS ?? '200');
const SESSIONS = Number(process.env.SESSIONS ?? '8');
const SEED = process.env.SEED === '1';
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
const sessionsDir = SESSIONS_DIR ?? '';
mkdirSync(sessionsDir, { recursive: true });
const storage = createTranscriptStore({ sessionsDir, fsync: true });
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
    sessionId: `s-${index % SESSIONS}`,
    input: `m${index}`,
  });
  if (outcome.kind !== 'reply') throw new Error(`turn ended ${outcome.kind}`);
};
if (SEED) {
  for (let index = 0; index < SESSIONS; index += 1)
    await writeSyntheticTranscript({
      sessionsDir,
      sessionId: `s-${index}`,
      turns: 10,
      keepLast: 20,
    });
}
for (let index = 0; index < (SEED ? 1 : 3) * SESSIONS; index += 1) await turn(index);
mark('start');
for (let index = 0; index < TURNS; index += 1) await turn(index);
mark('end');
await orchestrator.shutdown({ graceMs: 0 });
