import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFakeClaudeArgs } from './fake-claude-args';
import { createFakeClaudeTranscript, fakeClaudeProjectDir } from './fake-claude-transcript';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('parseFakeClaudeArgs', () => {
  it('reads the flags the claude-cli transport passes, and the prompt after --', () => {
    const args = parseFakeClaudeArgs([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      'abc',
      '--model',
      'm1',
      '--permission-mode',
      '--allowedTools',
      'Bash',
      'Read,Grep',
      '--',
      '--looks like a flag',
    ]);
    expect(args).toMatchObject({
      print: true,
      outputFormat: 'stream-json',
      verbose: true,
      resume: 'abc',
      model: 'm1',
      allowedTools: ['Bash', 'Read', 'Grep'],
      prompt: '--looks like a flag',
      unknown: ['--permission-mode'],
    });
  });

  it('takes a positional prompt too', () => {
    expect(parseFakeClaudeArgs(['-p', 'hello there']).prompt).toBe('hello there');
  });
});

describe('createFakeClaudeTranscript', () => {
  it('writes lines like Claude Code: one block per line sharing message.id, results after', () => {
    dir = mkdtempSync(join(tmpdir(), 'keel-fake-transcript-'));
    const transcript = createFakeClaudeTranscript({
      home: dir,
      cwd: '/srv/my.app_x',
      sessionId: 's-1',
    });
    expect(transcript.path).toBe(join(dir, '.claude', 'projects', '-srv-my-app-x', 's-1.jsonl'));
    expect(fakeClaudeProjectDir(dir, '/srv/my.app_x')).toBe(
      join(dir, '.claude', 'projects', '-srv-my-app-x'),
    );
    transcript.userPrompt('hi');
    transcript.assistantBlock('msg_1', 'm', { type: 'text', text: 'a' });
    const toolLine = transcript.assistantBlock('msg_1', 'm', {
      type: 'tool_use',
      id: 't1',
      name: 'Bash',
      input: {},
    });
    transcript.toolResult('t1', 'out', false, toolLine);
    const lines = readFileSync(transcript.path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.type)).toEqual([
      'queue-operation',
      'user',
      'assistant',
      'assistant',
      'user',
    ]);
    expect(lines[2].message.id).toBe('msg_1');
    expect(lines[3].message.id).toBe('msg_1');
    expect(lines[3].message.content).toEqual([
      { type: 'tool_use', id: 't1', name: 'Bash', input: {} },
    ]);
    expect(lines[4].message.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 't1' });
    expect(lines[4].sourceToolAssistantUUID).toBe(toolLine);
    expect(lines[4].parentUuid).toBe(lines[3].uuid);
    expect(new Set(lines.map((line) => line.sessionId))).toEqual(new Set(['s-1']));
  });
});
