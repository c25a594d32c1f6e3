import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Fastify gives every request a child of the gateway's logger (its request id as a binding).
 * A pino child serialises its bindings as it is made: 4 % of the gateway's CPU per message
 * (issue 20), for a logger that at the default level writes nothing — a request's own lines
 * (`incoming request`, `request completed`) are at `debug`. So the child is made only when a line
 * at an enabled level goes through it (or its own child or level is asked for); the lines it
 * writes are the same. A route with its own log level gets its child at once.
 */
export const lazyChildLoggerFactory: ChildLoggerFactory = (logger, bindings, options) => {
  if (options.level !== undefined || !hasLevelCheck(logger)) return logger.child(bindings, options);
  return new LazyChild(logger, bindings, options) as unknown as FastifyBaseLogger;
};

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type LevelChecked = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

/** A request's logger: the child made at its first line at a level the parent writes. */
class LazyChild {
  #child: FastifyBaseLogger | undefined;
  readonly #parent: LevelChecked;
  readonly #bindings: Bindings;
  readonly #options: ChildOptions;

  constructor(parent: LevelChecked, bindings: Bindings, options: ChildOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #made(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  #write(level: Level, args: unknown[]): void {
    if (this.#child === undefined && !this.#parent.isLevelEnabled(level)) return;
    (this.#made()[level] as (...line: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}
  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }
  get level(): string {
    return (this.#child ?? this.#parent).level;
  }
  set level(level: string) {
    this.#made().level = level;
  }
}

/** Whether the parent can tell which levels it writes (pino's `isLevelEnabled`). */
function hasLevelCheck(logger: FastifyBaseLogger): logger is LevelChecked {
  return typeof (logger as Partial<LevelChecked>).isLevelEnabled === 'function';
}
