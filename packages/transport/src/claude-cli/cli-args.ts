export interface CliArgsOptions {
  resumeId: string | undefined;
  model: string | undefined;
  system: string | undefined;
  extraArgs: readonly string[] | undefined;
  allowedTools: readonly string[] | undefined;
  prompt: string;
}

/**
 * `claude -p --output-format stream-json --verbose [--resume <id>] [--model …]
 * [--append-system-prompt …] [extra args] [--allowedTools …] -- <prompt>`. The prompt goes after
 * `--`, so a prompt that starts with a dash is never read as a flag.
 */
export function cliArgs(options: CliArgsOptions): string[] {
  return [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    ...(options.resumeId === undefined ? [] : ['--resume', options.resumeId]),
    ...(options.model === undefined ? [] : ['--model', options.model]),
    ...(options.system === undefined ? [] : ['--append-system-prompt', options.system]),
    ...(options.extraArgs ?? []),
    ...(options.allowedTools?.length ? ['--allowedTools', ...options.allowedTools] : []),
    '--',
    options.prompt,
  ];
}
