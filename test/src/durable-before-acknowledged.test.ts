/**
 * DESIGN.md "Durable before acknowledged": a turn's user message is written before its model call
 * and flushed while the call runs; nothing about the turn reaches any client before that flush is
 * done; if it fails, the turn ends with a storage error and no reply. Each case runs the real
 * orchestrator in a child process (`fixtures/durable-turns.mjs`) that prints what an observer is
 * told, as it is told; the file store's fsync is failed or held at the process's `fs` (a preload,
 * `fixtures/hold-fsync.cjs`), and the child is killed with SIGKILL mid-turn.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { useTestDatabase } from '@keel/postgres-test-server';
import { createTranscriptStore } from '@keel/session-fence';
import type { SessionStorage, TranscriptEntry, TurnEvent, TurnOutcome } from '@keel/spec';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { mockOrchestrator } from './support/mock-orchestrator';
import { transcriptReader } from './support/postgres-sessions';
import { waitUntil } from './support/wait-until';

const FIXTURE = fileURLToPath(new URL('./fixtures/durable-turns.mjs', import.meta.url));
const HOLD_FSYNC = fileURLToPath(new URL('./fixtures/hold-fsync.cjs', import.meta.url));
const TIMEOUT = 120_000;
const MODEL = 'durable-model';

interface Told {
  events: TurnEvent[];
  outcomes: TurnOutcome[];
  lines: string[];
  exited: Promise<number | null>;
  kill(): void;
}

/** Starts the fixture; `told` collects what its observer printed, line by line. */
function startTurns(options: {
  mock: MockProvider;
  turns: Array<{ text: string; clientMessageId: string }>;
  sessionsDir?: string;
  databaseUrl?: string;
  fsync?: { mode: 'fail' | 'hold' | 'count'; after: number };
  messageFlush?: 'own' | 'with-reply';
}): Told {
  const child = spawn(
    process.execPath,
    [...(options.fsync === undefined ? [] : ['--require', HOLD_FSYNC]), FIXTURE],
    {
      env: {
        ...process.env,
        MOCK_URL: options.mock.anthropicBaseUrl,
        SESSION_ID: 'durable',
        TURNS: JSON.stringify(options.turns),
        ...(options.sessionsDir === undefined ? {} : { SESSIONS_DIR: options.sessionsDir }),
        ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
        ...(options.messageFlush === undefined ? {} : { MESSAGE_FLUSH: options.messageFlush }),
        ...(options.fsync === undefined
          ? {}
          : {
              KEEL_FSYNC_MODE: options.fsync.mode,
              KEEL_FSYNC_AFTER: String(options.fsync.after),
            }),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const told: Told = {
    events: [],
    outcomes: [],
    lines: [],
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    kill: () => child.kill('SIGKILL'),
  };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    told.lines.push(line);
    if (line.startsWith('EVENT ')) told.events.push(JSON.parse(line.slice(6)) as TurnEvent);
    if (line.startsWith('OUTCOME ')) told.outcomes.push(JSON.parse(line.slice(8)) as TurnOutcome);
  });
  return told;
}

/** A fresh orchestrator on the same storage, as a restarted gateway would run. */
function restarted(storage: SessionStorage, mock: MockProvider) {
  return mockOrchestrator(storage, mock, MODEL);
}

const userMessages = (entries: readonly TranscriptEntry[], clientMessageId: string) =>
  entries.filter(
    (entry) =>
      entry.type === 'message' &&
      entry.role === 'user' &&
      entry.clientMessageId === clientMessageId,
  );

/** Everything the client was told about a turn: its events and outcome, by client message id. */
function toldAbout(told: Told, clientMessageId: string) {
  const turnIds = new Set(
    told.events
      .filter((event) => event.type === 'turn-start' && event.clientMessageId === clientMessageId)
      .map((event) => event.turnId),
  );
  return {
    started: turnIds.size > 0,
    events: told.events.filter((event) => turnIds.has(event.turnId)),
    outcome: told.outcomes.find((outcome) => outcome.clientMessageId === clientMessageId),
  };
}

/**
 * Two turns on the file store, `messageFlush` each; the child is killed while turn 2's first
 * transcript fsync hangs (its model already called). The client was told everything of turn 1 and
 * nothing of turn 2; turn 1 is stored, and turn 2's retry after a restart is answered, stored once.
 */
async function killWhileTurnTwoFlushes(messageFlush: 'own' | 'with-reply'): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'keel-durable-'));
  const mock = await createMockProvider({ defaultReply: () => 'Answered.' });
  try {
    const told = startTurns({
      mock,
      sessionsDir: dir,
      turns: [
        { text: 'first', clientMessageId: 'c-1' },
        { text: 'second', clientMessageId: 'c-2' },
      ],
      fsync: { mode: 'hold', after: 2 },
      messageFlush,
    });
    await waitUntil(
      'turn 2 asked the model, a write of its own being flushed',
      () => told.lines.includes('FSYNC-HELD') && mock.requests.length === 2,
    );
    // Give a leaked event time to reach the pipe before the kill.
    await new Promise((resolve) => setTimeout(resolve, 300));
    told.kill();
    await told.exited;

    expect(toldAbout(told, 'c-1').outcome).toMatchObject({ kind: 'reply', text: 'Answered.' });
    const second = toldAbout(told, 'c-2');
    expect(second.started).toBe(false);
    expect(second.outcome).toBeUndefined();

    // What the client was told (turn 1) is stored; turn 2's retry is answered, stored once.
    const storage = createTranscriptStore({ sessionsDir: dir });
    const before = await storage.read('durable');
    expect(userMessages(before.entries, 'c-1')).toHaveLength(1);
    const orchestrator = restarted(storage, mock);
    const retry = await orchestrator.runTurn({
      sessionId: 'durable',
      input: 'second',
      clientMessageId: 'c-2',
    });
    expect(retry).toMatchObject({ kind: 'reply', text: 'Answered.' });
    await orchestrator.shutdown({ graceMs: 0 });
    const after = await storage.read('durable');
    expect(userMessages(after.entries, 'c-1')).toHaveLength(1);
    expect(userMessages(after.entries, 'c-2')).toHaveLength(1);
  } finally {
    await mock.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the file store', () => {
  it(
    'a failed overlapped fsync ends the turn with a storage error and sends no reply',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'keel-durable-'));
      const mock = await createMockProvider({ defaultReply: () => 'A reply nobody may see.' });
      try {
        // The first transcript fsync is the turn's own message (the file's creation).
        const told = startTurns({
          mock,
          sessionsDir: dir,
          turns: [{ text: 'hello', clientMessageId: 'c-1' }],
          fsync: { mode: 'fail', after: 0 },
        });
        expect(await told.exited).toBe(0);
        expect(told.lines).toContain('FSYNC-FAILED');
        const about = toldAbout(told, 'c-1');
        expect(about.outcome).toMatchObject({ kind: 'error', errorKind: 'storage' });
        expect(about.outcome?.text).not.toContain('A reply nobody may see.');
        // Told the turn started and ended, nothing in between: no attempt, no model event.
        expect(about.events.map((event) => event.type)).toEqual(['turn-start', 'turn-end']);
        expect(told.lines.join('\n')).not.toContain('A reply nobody may see.');
        // No reply in the transcript either.
        const stored = await createTranscriptStore({ sessionsDir: dir }).read('durable');
        expect(
          stored.entries.filter((entry) => entry.type === 'message' && entry.role === 'assistant'),
        ).toEqual([]);
      } finally {
        await mock.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT,
  );

  it(
    'kill -9 between the write and the fsync: the model was called meanwhile, the client was told nothing, and nothing it was told is lost',
    // Turn 1 makes two transcript fsyncs (its message, its reply); turn 2's message hangs.
    () => killWhileTurnTwoFlushes('own'),
    TIMEOUT,
  );
});

describe("the file store, the message flushed with the reply (messageFlush: 'with-reply')", () => {
  const turns = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      text: `message ${index + 1}`,
      clientMessageId: `w-${index + 1}`,
    }));

  it(
    'one transcript fsync a turn, against two with the message flushed on its own',
    async () => {
      const mock = await createMockProvider({ defaultReply: () => 'Answered.' });
      const fsyncs: Record<string, number> = {};
      try {
        for (const messageFlush of ['own', 'with-reply'] as const) {
          const dir = await mkdtemp(join(tmpdir(), 'keel-durable-'));
          try {
            const told = startTurns({
              mock,
              sessionsDir: dir,
              turns: turns(4),
              fsync: { mode: 'count', after: 0 },
              messageFlush,
            });
            expect(await told.exited).toBe(0);
            expect(told.outcomes.map((outcome) => outcome.kind)).toEqual(Array(4).fill('reply'));
            fsyncs[messageFlush] = told.lines.filter((line) => line === 'FSYNC').length;
          } finally {
            await rm(dir, { recursive: true, force: true });
          }
        }
      } finally {
        await mock.close();
      }
      // The session's first write creates its file, flushed whatever was asked.
      expect(fsyncs).toEqual({ own: 8, 'with-reply': 5 });
    },
    TIMEOUT,
  );

  it(
    'a failed fsync of the turn’s last write: a storage error, and nothing of the turn but its start and end told',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'keel-durable-'));
      const mock = await createMockProvider({ defaultReply: () => 'A reply nobody may see.' });
      try {
        // Turn 1: the file's creation and the reply (two fsyncs); turn 2's one fsync fails.
        const told = startTurns({
          mock,
          sessionsDir: dir,
          turns: turns(2),
          fsync: { mode: 'fail', after: 2 },
          messageFlush: 'with-reply',
        });
        expect(await told.exited).toBe(0);
        expect(told.lines).toContain('FSYNC-FAILED');
        expect(toldAbout(told, 'w-1').outcome).toMatchObject({ kind: 'reply' });
        const about = toldAbout(told, 'w-2');
        expect(about.outcome).toMatchObject({ kind: 'error', errorKind: 'storage' });
        expect(about.events.map((event) => event.type)).toEqual(['turn-start', 'turn-end']);
        expect(JSON.stringify(about)).not.toContain('A reply nobody may see.');
      } finally {
        await mock.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT,
  );

  it(
    'kill -9 while the turn’s last write is being flushed: the client was told nothing of it, and its retry is answered once',
    // Turn 1 makes two transcript fsyncs (the file's creation, its reply); turn 2's one hangs.
    () => killWhileTurnTwoFlushes('with-reply'),
    TIMEOUT,
  );
});

describe('PostgreSQL', () => {
  const database = useTestDatabase();

  it(
    'kill -9 mid-turn: every message the client was told about is stored; the retry is answered once',
    async () => {
      const mock = await createMockProvider({
        script: [
          { behavior: { type: 'ok', text: 'Answered.' }, match: { model: MODEL }, times: 1 },
          { behavior: { type: 'hang' }, match: { model: MODEL }, times: 1 },
          { behavior: { type: 'ok', text: 'Answered.' }, match: { model: MODEL }, times: 10 },
        ],
      });
      const reader = transcriptReader(database);
      try {
        const told = startTurns({
          mock,
          databaseUrl: database.url,
          turns: [
            { text: 'first', clientMessageId: 'p-1' },
            { text: 'second', clientMessageId: 'p-2' },
          ],
        });
        await waitUntil('turn 2 is in its model call', () => mock.requests.length === 2);
        await waitUntil('the client was told turn 2 started', () => toldAbout(told, 'p-2').started);
        told.kill();
        await told.exited;

        const stored = (await reader.read('durable')).entries;
        expect(toldAbout(told, 'p-1').outcome).toMatchObject({ kind: 'reply' });
        expect(userMessages(stored, 'p-1')).toHaveLength(1);
        // Told that turn 2 started, about its message: that message is stored.
        const started = toldAbout(told, 'p-2').events.find((event) => event.type === 'turn-start');
        expect(started).toBeDefined();
        const p2 = userMessages(stored, 'p-2');
        expect(p2).toHaveLength(1);
        expect(started).toMatchObject({ messageId: (p2[0] as { messageId: string }).messageId });

        // The retry, once the killed turn's lease has expired, is answered; p-2 is stored once.
        const orchestrator = restarted(reader, mock);
        const retry = await orchestrator.runTurn({
          sessionId: 'durable',
          input: 'second',
          clientMessageId: 'p-2',
        });
        expect(retry).toMatchObject({ kind: 'reply', text: 'Answered.' });
        await orchestrator.shutdown({ graceMs: 0 });
        expect(userMessages((await reader.read('durable')).entries, 'p-2')).toHaveLength(1);
      } finally {
        await reader.close();
        await mock.close();
      }
    },
    TIMEOUT,
  );
});
