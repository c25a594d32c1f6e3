const MARKER = Symbol.for('keel.error.ConfigError');

/** One thing wrong with a configuration: where (`providers.0.profiles.1.apiKey`) and why. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/** The configuration cannot be used. Its message names every bad path and why, never a secret. */
export class ConfigError extends Error {
  readonly [MARKER] = true;
  override readonly name = 'ConfigError';
  readonly problems: readonly ConfigProblem[];

  constructor(options: { source: string; problems: readonly ConfigProblem[] }) {
    const lines = options.problems.map(
      (problem) => `  - ${problem.path || '(root)'}: ${problem.message}`,
    );
    super(`Invalid configuration (${options.source}):\n${lines.join('\n')}`);
    this.problems = options.problems;
  }

  static isInstance(error: unknown): error is ConfigError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
