// A provider that cannot work must stop the gateway before it listens, naming the provider:
// found at run time it would only look like `model_not_found` and a silent fallback.
const MARKER = Symbol.for('keel.error.ProviderSetupError');

/** One provider that cannot work, and why (no secret: package names, commands and paths only). */
export interface ProviderProblem {
  providerId: string;
  message: string;
}

/** Some configured providers cannot work; the message names each one and what to do. */
export class ProviderSetupError extends Error {
  readonly [MARKER] = true;
  override readonly name = 'ProviderSetupError';
  readonly problems: readonly ProviderProblem[];

  constructor(options: { problems: readonly ProviderProblem[] }) {
    const lines = options.problems.map(
      (problem) => `  - provider "${problem.providerId}": ${problem.message}`,
    );
    super(`Some providers cannot work:\n${lines.join('\n')}`);
    this.problems = options.problems;
  }

  static isInstance(error: unknown): error is ProviderSetupError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
