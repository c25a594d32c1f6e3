// A provider whose `baseUrl` nothing answers (a mock provider not started, a wrong port) shows up
// only at the first message, as a connection error. At start, one TCP connect per configured
// address tells the operator at once, without holding the start-up back.
import { connect } from 'node:net';
import type { KeelConfig } from '../config/config-schema';
import { systemCauseOf } from './name-error-cause';

interface WarnLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface WarnUnreachableOptions {
  /** How long a connect may take before the address counts as unreachable; default 2 000 ms. */
  timeoutMs?: number;
}

/**
 * Tries a TCP connection to each provider's configured `baseUrl` (providers without one use their
 * SDK's public endpoint and are not checked) and logs a warning naming the provider, the URL and
 * the cause for each that cannot be reached. Resolves when every check has ended; never rejects.
 */
export async function warnUnreachableProviders(
  config: Pick<KeelConfig, 'providers'>,
  logger: WarnLogger,
  options: WarnUnreachableOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 2_000;
  await Promise.all(
    config.providers.map(async (provider) => {
      const baseUrl = 'baseUrl' in provider ? provider.baseUrl : undefined;
      if (baseUrl === undefined) return;
      const problem = await connectProblem(new URL(baseUrl), timeoutMs);
      if (problem === undefined) return;
      logger.warn(
        { provider: provider.id, baseUrl, cause: problem },
        `provider "${provider.id}" is unreachable at ${baseUrl} (${problem}): its requests will fail until it answers`,
      );
    }),
  );
}

/** `undefined` when a TCP connection to the URL's host and port opens, else why not. */
function connectProblem(url: URL, timeoutMs: number): Promise<string | undefined> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.unref();
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      resolve(`no answer within ${timeoutMs} ms from ${url.host}`);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error) => {
      socket.destroy();
      resolve(systemCauseOf(error) ?? error.message);
    });
  });
}
