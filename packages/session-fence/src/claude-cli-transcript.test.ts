import { appendFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../test/support';
import {
  claudeCliProjectSlug,
  claudeCliTranscriptHasAssistant,
  defaultClaudeProjectsRoot,
  resolveClaudeCliTranscriptPath,
} from './claude-cli-transcript';
import { InvalidSessionIdError } from './session-fence-error';

const temp = useTempDir();

describe('resolveClaudeCliTranscriptPath', () => {
  it('slugs the cwd the way Claude Code 2.1.332 does', () => {
    expect(claudeCliProjectSlug('/home/me/code/app')).toBe('-home-me-code-app');
    expect(claudeCliProjectSlug('/tmp/sf-probe/my.dir_x y+z@w')).toBe(
      '-tmp-sf-probe-my-dir-x-y-z-w',
    );
    expect(
      resolveClaudeCliTranscriptPath({
        projectsRoot: '/h/.claude/projects',
        cwd: '/srv/my_app.v2',
        sessionId: '05158a9a-5993-443c-8bc1-d070b6ae137c',
      }),
    ).toBe('/h/.claude/projects/-srv-my-app-v2/05158a9a-5993-443c-8bc1-d070b6ae137c.jsonl');
  });

  it('cuts long names to 200 and appends the hash of the cwd, like the real CLI', () => {
    // Directory names observed from Claude Code 2.1.332 runs in these working directories.
    const base = '/tmp/sf-probe2/';
    const exact = `${base}${'c'.repeat(200 - base.length)}`;
    expect(claudeCliProjectSlug(exact)).toBe(exact.replace(/[^A-Za-z0-9]/g, '-'));
    const over = `${base}${'d'.repeat(201 - base.length)}`;
    expect(claudeCliProjectSlug(over)).toBe(
      `${over.replace(/[^A-Za-z0-9]/g, '-').slice(0, 200)}-em5vae`,
    );
    const long = `${base}${'e'.repeat(230)}0`;
    expect(claudeCliProjectSlug(long)).toHaveLength(207);
    const mixed = `/tmp/sf-probe2/${'a'.repeat(120)}/Ünïcode é-dir/${'b'.repeat(100)}`;
    expect(claudeCliProjectSlug(mixed)).toBe(
      `-tmp-sf-probe2-${'a'.repeat(120)}--n-code---dir-${'b'.repeat(50)}-vmnxld`,
    );
  });

  it('refuses a session id that could escape the project directory', () => {
    expect(() =>
      resolveClaudeCliTranscriptPath({
        projectsRoot: '/p',
        cwd: '/x',
        sessionId: '../../etc/passwd',
      }),
    ).toThrow(InvalidSessionIdError);
  });

  it('honours CLAUDE_CONFIG_DIR', () => {
    expect(defaultClaudeProjectsRoot({ CLAUDE_CONFIG_DIR: '/cfg' })).toBe('/cfg/projects');
    expect(defaultClaudeProjectsRoot({ HOME: '/home/x' })).toBe('/home/x/.claude/projects');
  });
});

describe('claudeCliTranscriptHasAssistant', () => {
  const userLine = JSON.stringify({
    type: 'user',
    isSidechain: false,
    message: { role: 'user', content: 'hi' },
  });
  const assistantLine = JSON.stringify({
    type: 'assistant',
    isSidechain: false,
    message: {
      id: 'msg_1',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'text', text: 'hello' }],
    },
  });

  it('finds a main-chain assistant record and ignores everything else', async () => {
    const path = join(temp.path, 's.jsonl');
    await writeFile(
      path,
      [
        userLine,
        JSON.stringify({ type: 'api-request-blob', message: { role: 'assistant', content: [] } }),
        JSON.stringify({
          type: 'assistant',
          isSidechain: true,
          message: { id: 'x', role: 'assistant', content: [] },
        }),
        JSON.stringify({
          type: 'assistant',
          message: { id: 'y', model: '<synthetic>', role: 'assistant', content: [] },
        }),
      ].join('\n') + '\n',
    );
    expect(await claudeCliTranscriptHasAssistant(path, { rescanDelayMs: 10 })).toBe(false);
    await appendFile(path, `${assistantLine}\n`);
    expect(await claudeCliTranscriptHasAssistant(path, { rescanDelayMs: 10 })).toBe(true);
  });

  it('re-scans once to catch a record flushed just after the first scan', async () => {
    const path = join(temp.path, 's.jsonl');
    await writeFile(path, `${userLine}\n`);
    const result = claudeCliTranscriptHasAssistant(path, { rescanDelayMs: 1500 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await appendFile(path, `${assistantLine}\n`);
    expect(await result).toBe(true);
  });

  it('is false for missing, symlinked and non-regular paths', async () => {
    const real = join(temp.path, 'real.jsonl');
    await writeFile(real, `${assistantLine}\n`);
    await symlink(real, join(temp.path, 'link.jsonl'));
    await mkdir(join(temp.path, 'dir.jsonl'));
    for (const name of ['missing.jsonl', 'link.jsonl', 'dir.jsonl']) {
      expect(
        await claudeCliTranscriptHasAssistant(join(temp.path, name), { rescanDelayMs: 1 }),
      ).toBe(false);
    }
  });

  it('wakes on abort during the re-scan wait', async () => {
    const path = join(temp.path, 'none.jsonl');
    const controller = new AbortController();
    const waiting = claudeCliTranscriptHasAssistant(path, {
      rescanDelayMs: 600_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 30);
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
  });
});
