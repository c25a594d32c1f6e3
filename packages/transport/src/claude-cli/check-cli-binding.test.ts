import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { resolveClaudeCliTranscriptPath } from '@keel/session-fence';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkCliBinding } from './check-cli-binding';

const cliSessionId = '8f0c2a4e-5b1d-4c3e-9a7f-0d2b6e1c9a34';
let projectsRoot: string;
let cwd: string;

beforeEach(() => {
  const dir = mkdtempSync(join(tmpdir(), 'keel-check-binding-'));
  projectsRoot = join(dir, 'projects');
  cwd = join(dir, 'work');
});
afterEach(() => rmSync(dirname(projectsRoot), { recursive: true, force: true }));

/** Writes a transcript shaped like Claude Code's: one content block per line. */
function writeTranscript(lines: object[]): void {
  const path = resolveClaudeCliTranscriptPath({ projectsRoot, cwd, sessionId: cliSessionId });
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
}

const user = (content: unknown) => ({
  type: 'user',
  isSidechain: false,
  sessionId: cliSessionId,
  message: { role: 'user', content },
});
const assistant = (id: string, block: object) => ({
  type: 'assistant',
  isSidechain: false,
  sessionId: cliSessionId,
  message: { id, role: 'assistant', type: 'message', content: [block] },
});
const toolUse = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: { path: 'a' } });
const toolResult = (id: string, content: string) =>
  user([{ type: 'tool_result', tool_use_id: id, content }]);

const check = (extra: { inspectBytes?: number; maxInspectBytes?: number } = {}) =>
  checkCliBinding({ projectsRoot, cwd, cliSessionId, ...extra });

describe('checkCliBinding', () => {
  it('drops a binding whose transcript is missing', async () => {
    expect(await check()).toMatchObject({ valid: false, reason: 'missing-transcript' });
  });

  it('drops a binding whose transcript ends in an unanswered tool_use', async () => {
    writeTranscript([user('read a'), assistant('msg_1', toolUse('toolu_1'))]);
    expect(await check()).toMatchObject({
      valid: false,
      reason: 'orphaned-tool-use',
      orphanedToolUseIds: ['toolu_1'],
    });
  });

  it('keeps a binding whose last tool_use was answered', async () => {
    writeTranscript([
      user('read a'),
      assistant('msg_1', toolUse('toolu_1')),
      toolResult('toolu_1', 'contents'),
      assistant('msg_2', { type: 'text', text: 'done' }),
    ]);
    expect(await check()).toMatchObject({ valid: true });
  });

  describe('a last exchange longer than the first window', () => {
    const bigResult = 'x'.repeat(256 * 1024);

    it('looks again with the larger window and keeps a binding shown safe there', async () => {
      writeTranscript([
        user('read a'),
        assistant('msg_1', toolUse('toolu_1')),
        toolResult('toolu_1', bigResult),
      ]);
      expect(await check({ inspectBytes: 16 * 1024, maxInspectBytes: 1024 * 1024 })).toMatchObject({
        valid: true,
      });
    });

    it('finds an orphan that only the larger window shows', async () => {
      writeTranscript([
        user('read a and b'),
        assistant('msg_1', toolUse('toolu_1')),
        assistant('msg_1', toolUse('toolu_2')),
        toolResult('toolu_1', bigResult),
      ]);
      expect(await check({ inspectBytes: 16 * 1024, maxInspectBytes: 1024 * 1024 })).toMatchObject({
        valid: false,
        reason: 'orphaned-tool-use',
        orphanedToolUseIds: ['toolu_2'],
      });
    });

    it('drops a binding it cannot show safe within the largest window', async () => {
      writeTranscript([
        user('read a and b'),
        assistant('msg_1', toolUse('toolu_1')),
        assistant('msg_1', toolUse('toolu_2')),
        toolResult('toolu_1', bigResult),
      ]);
      expect(await check({ inspectBytes: 16 * 1024, maxInspectBytes: 64 * 1024 })).toMatchObject({
        valid: false,
        reason: 'unverifiable-transcript',
      });
    });
  });
});
