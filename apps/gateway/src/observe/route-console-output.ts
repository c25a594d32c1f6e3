// Provider SDKs print their own notices (a model's deprecation, a retry) with console.warn, and
// Node prints process warnings to stderr: in a JSON log those land between its lines, unparsed
// and unredacted. In the gateway process they become log records like any other.
import { format } from 'node:util';

interface WarningLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * Sends `console.warn` and `console.error` to `logger` (`source: "console"`) and process
 * warnings (`process.emitWarning`, deprecations) to `logger.warn` (`source: "process"`, with
 * the warning's name and code) instead of Node's stderr printer. Returns the undo.
 */
export function routeConsoleOutput(logger: WarningLogger): () => void {
  const saved = { warn: console.warn, error: console.error };
  const printers = process.listeners('warning');
  console.warn = (...args: unknown[]) => logger.warn({ source: 'console' }, format(...args));
  console.error = (...args: unknown[]) => logger.error({ source: 'console' }, format(...args));
  const onWarning = (warning: Error & { code?: string }) => {
    logger.warn(
      {
        source: 'process',
        warning: {
          name: warning.name,
          ...(warning.code === undefined ? {} : { code: warning.code }),
        },
      },
      warning.message,
    );
  };
  for (const printer of printers) process.off('warning', printer);
  process.on('warning', onWarning);
  return () => {
    console.warn = saved.warn;
    console.error = saved.error;
    process.off('warning', onWarning);
    for (const printer of printers) process.on('warning', printer);
  };
}
