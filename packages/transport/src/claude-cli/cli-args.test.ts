import { describe, expect, it } from 'vitest';
import { cliArgs } from './cli-args';

describe('cliArgs', () => {
  it('starts a fresh session with only the fixed flags (the prompt goes to stdin)', () => {
    expect(
      cliArgs({
        resumeId: undefined,
        model: undefined,
        system: undefined,
        extraArgs: undefined,
        allowedTools: [],
      }),
    ).toEqual(['-p', '--output-format', 'stream-json', '--verbose']);
  });

  it('resumes with the configured model, system prompt, extra args and allowed tools', () => {
    expect(
      cliArgs({
        resumeId: 'cli-1',
        model: 'claude-x',
        system: 'Be brief.',
        extraArgs: ['--permission-mode', 'default'],
        allowedTools: ['Bash(git *)', 'Read'],
      }),
    ).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      'cli-1',
      '--model',
      'claude-x',
      '--append-system-prompt',
      'Be brief.',
      '--permission-mode',
      'default',
      '--allowedTools',
      'Bash(git *)',
      'Read',
    ]);
  });
});
