export interface CliArgsOptions {
  resumeId: string | undefined;
  model: string | undefined;
  system: string | undefined;
  extraArgs: readonly string[] | undefined;
  allowedTools: readonly string[] | undefined;
}

/**
 * `claude -p --output-format stream-json --verbose [--resume <id>] [--model …]
 * [--append-system-prompt …] [extra args] [--allowedTools …]`. The prompt is not an argument: the
 * CLI reads it from stdin (`-p` without a prompt argument), so its size has no limit (one argument
 * over 128 KiB fails `spawn` with `E2BIG` on Linux) and a prompt that starts with a dash is never
 * read as a flag.
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
  ];
}
