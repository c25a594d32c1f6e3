/** The flags of `claude` that the fake understands; anything else is kept in `unknown`. */
export interface FakeClaudeArgs {
  print: boolean;
  prompt: string | undefined;
  outputFormat: string | undefined;
  verbose: boolean;
  resume: string | undefined;
  model: string | undefined;
  allowedTools: string[];
  appendSystemPrompt: string | undefined;
  unknown: string[];
}

const valueFlags: Record<string, 'outputFormat' | 'resume' | 'model' | 'appendSystemPrompt'> = {
  '--output-format': 'outputFormat',
  '--resume': 'resume',
  '-r': 'resume',
  '--model': 'model',
  '--append-system-prompt': 'appendSystemPrompt',
};

/** Flags of the real CLI that take a value the fake does not use: skipped with their value (when one follows). */
const ignoredValueFlags = new Set([
  '--permission-mode',
  '--max-turns',
  '--settings',
  '--mcp-config',
  '--fallback-model',
  '--input-format',
]);

export function parseFakeClaudeArgs(argv: readonly string[]): FakeClaudeArgs {
  const args: FakeClaudeArgs = {
    print: false,
    prompt: undefined,
    outputFormat: undefined,
    verbose: false,
    resume: undefined,
    model: undefined,
    allowedTools: [],
    appendSystemPrompt: undefined,
    unknown: [],
  };
  let index = 0;
  while (index < argv.length) {
    const arg = argv[index] ?? '';
    index += 1;
    if (arg === '--') {
      args.prompt = argv.slice(index).join(' ');
      break;
    }
    if (arg === '-p' || arg === '--print') {
      args.print = true;
      continue;
    }
    if (arg === '--verbose') {
      args.verbose = true;
      continue;
    }
    const valueKey = valueFlags[arg];
    if (valueKey !== undefined) {
      args[valueKey] = argv[index];
      index += 1;
      continue;
    }
    if (arg === '--allowedTools' || arg === '--allowed-tools') {
      while (index < argv.length && !(argv[index] ?? '').startsWith('-')) {
        args.allowedTools.push(...(argv[index] ?? '').split(',').filter((tool) => tool !== ''));
        index += 1;
      }
      continue;
    }
    if (ignoredValueFlags.has(arg)) {
      args.unknown.push(arg);
      if (!(argv[index] ?? '-').startsWith('-')) index += 1;
      continue;
    }
    if (arg.startsWith('-')) {
      args.unknown.push(arg);
      continue;
    }
    args.prompt = args.prompt === undefined ? arg : `${args.prompt} ${arg}`;
  }
  return args;
}
