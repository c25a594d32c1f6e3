/**
 * A process killed (`kill -9`) while one of its turn's tools runs leaves a trailing orphaned
 * `tool_use`. The next orchestrator on the same files answers the unanswered message, repairing the
 * orphan with an error result first — the model never sees an unpaired tool call.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createTranscriptStore } from '@keel/session-fence';
import { createMockProvider } from '@keel/testing';
import { expect, it } from 'vitest';
import { mockOrchestrator } from './support/mock-orchestrator';

it('a turn killed mid-tool: the next turn repairs the orphan and answers the message', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'keel-crash-'));
  const mock = await createMockProvider({ defaultReply: () => 'All done.' });
  mock.enqueue({
    behavior: { type: 'ok', toolCalls: [{ id: 'toolu_slow', name: 'slow_job', input: {} }] },
    match: { model: 'crash-model' },
  });
  try {
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL('./fixtures/turn-with-hanging-tool.mjs', import.meta.url))],
      {
        env: { ...process.env, SESSIONS_DIR: dir, MOCK_URL: mock.anthropicBaseUrl },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line === 'TOOL-STARTED') resolve();
      });
    });
    child.kill('SIGKILL');
    await exited;

    const storage = createTranscriptStore({ sessionsDir: dir });
    const before = await storage.inspectTrailingToolUses('crash');
    expect(before.orphans).toEqual(['toolu_slow']);
    const orchestrator = mockOrchestrator(storage, mock, 'crash-model');
    const [outcome] = await orchestrator.recover('crash');
    expect(outcome).toMatchObject({ kind: 'reply', text: 'All done.', clientMessageId: 'c-1' });
    const body = JSON.stringify(mock.requests.at(-1)?.body);
    expect(body).toContain('"tool_use_id":"toolu_slow"');
    expect(body).toContain('"is_error":true');
    expect((await storage.inspectTrailingToolUses('crash')).orphans).toEqual([]);
    // A retry with the same clientMessageId now gets that answer, and no second turn runs.
    const requests = mock.requests.length;
    const again = await orchestrator.runTurn({
      sessionId: 'crash',
      input: 'start the slow job',
      clientMessageId: 'c-1',
    });
    expect(again).toMatchObject({ kind: 'reply', turnId: outcome?.turnId });
    expect(mock.requests.length).toBe(requests);
  } finally {
    await mock.close();
    await rm(dir, { recursive: true, force: true });
  }
});
