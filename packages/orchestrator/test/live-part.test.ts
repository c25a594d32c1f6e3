// A cached transcript keeps only its live part (issue 20, "flat in history": a long conversation
// takes in the transcript cache what its model context takes): once a turn put a compacted
// transcript back, the next turn holds the entries from the latest compaction's kept ones on, and
// the facts of the rest. What that must not change, checked here over the real file store:
// - the model sees the same conversation;
// - a repeat of a message answered long ago (its reply only in assistant messages let go of) gets
//   its stored reply, read again from storage — alone or while another turn of the session runs;
// - a compaction still reads the whole transcript.
// Hand-made mutants, each failing a test here: `letGo` never letting go (no read for the old
// repeat); `replyEntries` using the live part only (the old repeat's reply empty); the queue's
// lookup of a running turn's facts dropped (the old repeat runs as a new message); the compaction
// store's `read` given the live part.
import { randomUUID } from 'node:crypto';
import type {
  CompactionEntry,
  CompactorPort,
  SessionStorage,
  TranscriptEntry,
  TurnOutcome,
} from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createEntryFactory } from '../src/entries';
import { createHarness, type Harness } from './harness';

const factory = createEntryFactory(randomUUID, Date.now);
const TURNS = 12;
const KEPT = 2;

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** `TURNS` answered turns (client ids `c-<n>`, replies `answer <n>` kept only in their messages),
 * then a compaction that keeps the last `KEPT`. */
function history(): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  const firsts: string[] = [];
  for (let index = 0; index < TURNS; index += 1) {
    const turnId = randomUUID();
    const user = factory.message({
      role: 'user',
      content: [{ type: 'text', text: `message ${index}` }],
      clientMessageId: `c-${index}`,
      turnId,
    });
    firsts.push(user.id);
    const reply: TurnOutcome = {
      kind: 'reply',
      text: `answer ${index}`,
      messageId: user.messageId,
      clientMessageId: `c-${index}`,
      turnId,
      model: 'anthropic/primary',
      provider: 'anthropic',
      attempts: [],
    };
    entries.push(
      user,
      factory.turnStart({ turnId, messageId: user.messageId, clientMessageId: `c-${index}` }),
      factory.message({ role: 'assistant', content: [{ type: 'text', text: reply.text }], turnId }),
      factory.turnEnd(reply, { text: false }),
    );
  }
  const compaction: CompactionEntry = {
    type: 'compaction',
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    summary: 'The user counted messages.',
    firstKeptEntryId: firsts[TURNS - KEPT] as string,
    provenance: {
      producerId: 'test',
      attempts: 1,
      tokensBefore: 1000,
      tokensAfter: 10,
      sourceDigest: `sha256:${'0'.repeat(64)}`,
    },
  };
  entries.push(compaction);
  return entries;
}

/** Counts the orchestrator's whole-transcript reads. */
function countingReads(reads: { count: number }) {
  return (storage: SessionStorage): SessionStorage => {
    const counted = Object.create(storage) as SessionStorage;
    counted.read = (...args) => {
      reads.count += 1;
      return storage.read(...args);
    };
    return counted;
  };
}

function userTextsSent(request: unknown): string[] {
  return (request as Array<{ role: string; content: Array<{ type: string; text?: string }> }>)
    .filter((message) => message.role === 'user')
    .flatMap((message) => message.content.flatMap((block) => block.text ?? []));
}

describe('a cached transcript keeps its live part', () => {
  it('the model sees the same conversation; an old repeat gets its reply, read again', async () => {
    const reads = { count: 0 };
    harness = await createHarness({ wrapStorage: countingReads(reads) });
    await harness.storage.append('s', history());

    const first = await harness.orchestrator.runTurn({ sessionId: 's', input: 'next' });
    expect(first.kind).toBe('reply');
    expect(reads.count).toBe(1);
    const second = await harness.orchestrator.runTurn({ sessionId: 's', input: 'after' });
    expect(second.kind).toBe('reply');
    // Served from the cache (nothing read), which held only the live part.
    expect(reads.count).toBe(1);
    const requests = harness.mock.requests.filter((request) => request.api !== 'other');
    const kept = Array.from({ length: KEPT }, (_, index) => `message ${TURNS - KEPT + index}`);
    expect(userTextsSent(requests[0]?.messages)).toEqual([...kept, 'next']);
    expect(userTextsSent(requests[1]?.messages)).toEqual([...kept, 'next', 'after']);

    // A repeat of a kept message needs nothing more; one of a message compacted away is read again.
    const recent = await harness.orchestrator.runTurn({
      sessionId: 's',
      input: 'ignored',
      clientMessageId: `c-${TURNS - 1}`,
    });
    expect(recent).toMatchObject({ kind: 'reply', text: `answer ${TURNS - 1}`, attempts: [] });
    expect(reads.count).toBe(1);
    const old = await harness.orchestrator.runTurn({
      sessionId: 's',
      input: 'ignored',
      clientMessageId: 'c-0',
    });
    expect(old).toMatchObject({
      kind: 'reply',
      text: 'answer 0',
      clientMessageId: 'c-0',
      model: 'anthropic/primary',
      attempts: [],
    });
    expect(reads.count).toBe(2);
    expect(harness.mock.requests.filter((request) => request.api !== 'other')).toHaveLength(2);
  });

  it('an old repeat that arrives while a turn runs gets its stored reply, not a turn', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let hold = false;
    harness = await createHarness({
      beforeStreamEnds: async () => {
        if (!hold) return;
        started();
        await released;
      },
    });
    await harness.storage.append('s', history());
    await harness.orchestrator.runTurn({ sessionId: 's', input: 'next' });

    hold = true;
    const slow = harness.orchestrator.runTurn({ sessionId: 's', input: 'slow' });
    await running;
    const repeat = harness.orchestrator.runTurn({
      sessionId: 's',
      input: 'ignored',
      clientMessageId: 'c-1',
    });
    release();
    const [answered, stored] = await Promise.all([slow, repeat]);
    expect(answered.kind).toBe('reply');
    expect(stored).toMatchObject({ kind: 'reply', text: 'answer 1', clientMessageId: 'c-1' });
    expect(harness.mock.requests.filter((request) => request.api !== 'other')).toHaveLength(2);
    const texts = (await harness.entries('s')).flatMap((entry) =>
      entry.type === 'message' && entry.role === 'user' ? [entry.clientMessageId] : [],
    );
    expect(texts.filter((id) => id === 'c-1')).toHaveLength(1);
  });

  it('an old repeat that waits with a new message for the next turn (steer) is not written with it', async () => {
    harness = await createHarness({ overrides: { queueMode: 'steer' } });
    await harness.storage.append('s', history());
    await harness.orchestrator.runTurn({ sessionId: 's', input: 'next' });
    const [fresh, repeat] = await Promise.all([
      harness.orchestrator.runTurn({ sessionId: 's', input: 'fresh', clientMessageId: 'c-new' }),
      harness.orchestrator.runTurn({ sessionId: 's', input: 'ignored', clientMessageId: 'c-2' }),
    ]);
    expect(fresh.kind).toBe('reply');
    expect(repeat).toMatchObject({ kind: 'reply', text: 'answer 2', clientMessageId: 'c-2' });
    const ids = (await harness.entries('s')).flatMap((entry) =>
      entry.type === 'message' && entry.role === 'user' ? [entry.clientMessageId] : [],
    );
    expect(ids.filter((id) => id === 'c-2')).toHaveLength(1);
  });

  it('a compaction reads the whole transcript', async () => {
    const seen: number[] = [];
    harness = await createHarness({
      compactor: (): CompactorPort => ({
        shouldCompact: () => true,
        async compact(request) {
          seen.push((await request.store.read(request.sessionId)).entries.length);
          return { status: 'skipped', reason: 'not-needed' };
        },
      }),
    });
    const written = history();
    await harness.storage.append('s', written);
    await harness.orchestrator.runTurn({ sessionId: 's', input: 'next' });
    await harness.orchestrator.runTurn({ sessionId: 's', input: 'after' });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    // Each turn writes its message and start before it compacts: the whole, read or cached.
    expect(seen[0]).toBe(written.length + 2);
    expect(seen.at(-1)).toBeGreaterThanOrEqual(written.length + 6);
  });
});
