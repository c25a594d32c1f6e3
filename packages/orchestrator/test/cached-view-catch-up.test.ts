// A cached transcript that another writer appended to is brought up to date with only what was
// appended (cached-view.ts, `SessionStorage.readSince`), not read whole again: two orchestrators
// over one sessions folder take turns on a session, each turn's model request holding every
// exchange before it. A transcript changed any other way (here: rewritten with other bytes) is read
// whole. Hand-made mutants failing here: the appended entries not added to the view (the model
// misses the other gateway's exchange); `readSince` never used (a whole read per turn); its
// `undefined` taken for "nothing appended" (the rewritten transcript's old view kept); a view put
// back under the state asked for taken as behind it (a `readSince` on every turn).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import type { SessionStorage } from '@keel/spec';
import { createMockProvider, type MockProvider } from '@keel/testing';
import { createTransport } from '@keel/transport';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOrchestrator, type Orchestrator } from '../src/index';

let sessionsDir: string;
let mock: MockProvider;
const orchestrators: Orchestrator[] = [];
beforeEach(async () => {
  sessionsDir = await mkdtemp(join(tmpdir(), 'keel-catch-up-'));
  mock = await createMockProvider({ defaultReply: (request) => `reply ${request.receivedAt}` });
});
afterEach(async () => {
  for (const orchestrator of orchestrators.splice(0)) await orchestrator.shutdown({ graceMs: 0 });
  await mock.close();
  await rm(sessionsDir, { recursive: true, force: true });
});

interface Calls {
  reads: number;
  since: number;
}

/** An orchestrator over its own file store of the shared folder, counting its reads. */
function gateway(calls: Calls): Orchestrator {
  const store = createTranscriptStore({ sessionsDir, fsync: false, lock: { pollMs: 5 } });
  const storage = Object.create(store) as SessionStorage;
  storage.read = (...args) => {
    calls.reads += 1;
    return store.read(...args);
  };
  storage.readSince = (...args) => {
    calls.since += 1;
    return store.readSince(...args);
  };
  const transport = createTransport({
    api: 'anthropic-messages',
    baseUrl: mock.anthropicBaseUrl,
    apiKey: 'k',
    model: 'm',
    maxTokens: 64,
  });
  const orchestrator = createOrchestrator({
    storage,
    fences: (sessionId) => createSessionFence({ storage, sessionId }),
    providers: [{ id: 'anthropic', profiles: [{ id: 'main' }] }],
    models: { primary: 'anthropic/m' },
    router: { connect: () => transport },
  });
  orchestrators.push(orchestrator);
  return orchestrator;
}

/** The user texts of the last model request. */
function lastUserTexts(): string[] {
  const last = mock.requests.filter((request) => request.api === 'anthropic-messages').at(-1);
  return ((last?.messages ?? []) as Array<{ role: string; content: Array<{ text?: string }> }>)
    .filter((message) => message.role === 'user')
    .flatMap((message) => message.content.flatMap((block) => block.text ?? []));
}

describe('a cached transcript another writer appended to', () => {
  it('is brought up to date with what was appended, not read whole', async () => {
    const a: Calls = { reads: 0, since: 0 };
    const b: Calls = { reads: 0, since: 0 };
    const first = gateway(a);
    const second = gateway(b);
    const texts: string[] = [];
    for (const [index, orchestrator] of [first, second, first, second, first].entries()) {
      const text = `message ${index}`;
      texts.push(text);
      const outcome = await orchestrator.runTurn({ sessionId: 's', input: text });
      expect(outcome.kind).toBe('reply');
      expect(lastUserTexts()).toEqual(texts);
    }
    // Each read the transcript whole once (its first turn), then only what the other appended.
    expect(a).toEqual({ reads: 1, since: 2 });
    expect(b).toEqual({ reads: 1, since: 1 });
  });

  it('is taken as it is while nobody else wrote (nothing read)', async () => {
    const a: Calls = { reads: 0, since: 0 };
    const only = gateway(a);
    for (const text of ['one', 'two', 'three']) await only.runTurn({ sessionId: 's', input: text });
    expect(lastUserTexts()).toEqual(['one', 'two', 'three']);
    expect(a).toEqual({ reads: 1, since: 0 });
  });

  it('is read whole once the transcript was changed some other way', async () => {
    const a: Calls = { reads: 0, since: 0 };
    const first = gateway(a);
    await first.runTurn({ sessionId: 's', input: 'message 0' });
    await first.runTurn({ sessionId: 's', input: 'message 1' });
    // Another writer rewrites the first message's text (as long as before: only the bytes differ).
    const path = join(sessionsDir, 's.jsonl');
    await writeFile(path, (await readFile(path, 'utf8')).replace('message 0', 'rewritten'));
    await first.runTurn({ sessionId: 's', input: 'message 2' });
    expect(lastUserTexts()).toEqual(['rewritten', 'message 1', 'message 2']);
    expect(a.reads).toBe(2);
  });
});
