// applySwitch (src/live-switch.ts) called before the turn's first attempt, when the turn has no
// `lastTarget` yet: its decision event must then carry no `from` member at all (not
// `from: undefined`), both for a switch and for a switch past `maxModelSwitches`. Through the whole
// orchestrator that state is only reachable in a narrow window (a selection landing between the
// turn's read of its selection and its first attempt), so the module is called directly here, over
// real settings, progress, emitter, entry factory and a real fence on a file store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { SessionFence, SessionStorage, TranscriptEntry, TurnEvent } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createEntryFactory } from '../src/entries';
import type { OrchestratorOptions } from '../src/index';
import { applySwitch } from '../src/live-switch';
import { resolveSettings } from '../src/resolve-settings';
import { createTurnEmitter } from '../src/turn-emitter';
import { createTurnProgress, type TurnProgress } from '../src/turn-progress';
import type { LiveTurn, TurnRuntime } from '../src/turn-runtime';
import { createFakeClock } from './fake-clock';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface Setup {
  runtime: TurnRuntime;
  turn: LiveTurn;
  progress: TurnProgress;
  events: TurnEvent[];
  storage: SessionStorage;
  fence: SessionFence;
  at: number;
}

async function setup(options: { maxModelSwitches?: number } = {}): Promise<Setup> {
  const sessionsDir = await mkdtemp(join(tmpdir(), 'keel-live-switch-'));
  const storage = createTranscriptStore({ sessionsDir, fsync: false, lock: { pollMs: 5 } });
  const fence = createSessionFence({ storage, sessionId: 's1' });
  await fence.acquire();
  cleanups.push(async () => {
    await fence.end();
    await rm(sessionsDir, { recursive: true, force: true });
  });
  const orchestratorOptions: OrchestratorOptions = {
    storage,
    fences: (sessionId) => createSessionFence({ storage, sessionId }),
    router: {
      connect: () => {
        throw new Error('no model call in these tests');
      },
    },
    providers: [
      { id: 'anthropic', profiles: [{ id: 'k1' }] },
      { id: 'backup', profiles: [{ id: 'b1' }] },
    ],
    models: { primary: 'anthropic/primary', settings: { 'backup/other': {} } },
    ...(options.maxModelSwitches === undefined
      ? {}
      : { maxModelSwitches: options.maxModelSwitches }),
  };
  const settings = resolveSettings(orchestratorOptions);
  const clock = createFakeClock();
  let ids = 0;
  const nextId = () => {
    ids += 1;
    return `entry-${ids}`;
  };
  const emitter = createTurnEmitter([]);
  const events: TurnEvent[] = [];
  emitter.subscribe((event) => events.push(event));
  // Only what applySwitch reads: the clock, settings, emitter and entry factory.
  const runtime = {
    clock,
    settings,
    emitter,
    entries: createEntryFactory(nextId, clock.now),
  } as unknown as TurnRuntime;
  const turn = {
    sessionId: 's1',
    turnId: 'turn-1',
    fence,
    entries: [] as TranscriptEntry[],
    controller: new AbortController(),
    requestedModel: 'backup/other',
  } as unknown as LiveTurn;
  const progress = createTurnProgress('anthropic/primary', settings, clock.now);
  return { runtime, turn, progress, events, storage, fence, at: clock.now() };
}

describe('applySwitch before the first attempt', () => {
  it('switches, and its switch_model event has no `from` member', async () => {
    const s = await setup();
    expect(s.progress.lastTarget).toBeUndefined();
    await expect(applySwitch(s.runtime, s.turn, s.progress)).resolves.toBeUndefined();
    expect(s.progress.selection).toBe('backup/other');
    expect(s.progress.switches).toBe(1);
    expect(s.turn.requestedModel).toBeUndefined();
    expect(s.events).toHaveLength(1);
    const event = s.events[0];
    // toStrictEqual tells `from: undefined` apart from no `from` at all.
    expect(event).toStrictEqual({
      sessionId: 's1',
      turnId: 'turn-1',
      at: s.at,
      type: 'decision',
      label: 'switch_model',
      reason: 'switch_model',
      to: { providerId: 'backup', profileId: 'b1', model: 'other' },
    });
    expect('from' in (event as object)).toBe(false);
  });

  it('past maxModelSwitches: ends with the limit copy, writes the healed selection, no `from`', async () => {
    const s = await setup({ maxModelSwitches: 0 });
    const ending = await applySwitch(s.runtime, s.turn, s.progress);
    expect(ending).toStrictEqual({
      kind: 'error',
      text: s.runtime.settings.copy.modelSwitchLimit,
    });
    expect(s.progress.selection).toBe('anthropic/primary');
    expect(s.progress.switches).toBe(0);
    const healed = {
      type: 'model-selection',
      id: 'entry-1',
      timestamp: new Date(s.at).toISOString(),
      model: 'backup/other',
      source: 'healed',
      turnId: 'turn-1',
    };
    expect(s.turn.entries).toEqual([healed]);
    // Written through the turn's fence: the transcript on disk holds it.
    const stored = await s.storage.read('s1');
    expect(stored.entries).toEqual([healed]);
    expect(s.events).toHaveLength(1);
    const event = s.events[0];
    expect(event).toStrictEqual({
      sessionId: 's1',
      turnId: 'turn-1',
      at: s.at,
      type: 'decision',
      label: 'final',
      reason: 'switch_limit',
    });
    expect('from' in (event as object)).toBe(false);
  });
});
