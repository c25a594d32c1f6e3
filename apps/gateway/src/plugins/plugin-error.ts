const MARKER = Symbol.for('keel.error.PluginLoadError');

/** A configured plugin cannot be used: start-up stops with the plugin's name and the problem. */
export class PluginLoadError extends Error {
  readonly [MARKER] = true;
  override readonly name = 'PluginLoadError';
  readonly plugin: string;

  constructor(options: { plugin: string; problem: string; cause?: unknown }) {
    super(
      `Plugin "${options.plugin}": ${options.problem}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.plugin = options.plugin;
  }

  static isInstance(error: unknown): error is PluginLoadError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}
