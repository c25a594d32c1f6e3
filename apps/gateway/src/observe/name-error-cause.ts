// An SDK's connection error says only "Connection error."; what an operator needs — refused,
// reset, not resolved, and where — sits in its `cause` chain (undici's "fetch failed", then the
// Node system error). The attempt's log line carries it.
import { sanitizeForLog } from '@keel/error-classification';

/** The parts of a classification this reads and changes. */
interface WithMessage {
  message?: string;
}

const MAX_DEPTH = 8;

/**
 * Wraps a classifier so that the log message of an error whose cause chain holds a Node system
 * error names it: `Connection error. (cause: ECONNREFUSED 127.0.0.1:4010)`. Classifications
 * are otherwise unchanged.
 */
export function nameErrorCause<Options, Result extends WithMessage>(
  classify: (error: unknown, options: Options) => Result,
): (error: unknown, options: Options) => Result {
  return (error, options) => {
    const classification = classify(error, options);
    const cause = systemCauseOf(error);
    if (cause === undefined) return classification;
    const message = classification.message ?? '';
    if (message.includes(cause)) return classification;
    return {
      ...classification,
      message: sanitizeForLog(message === '' ? `cause: ${cause}` : `${message} (cause: ${cause})`),
    };
  };
}

/**
 * `ECONNREFUSED 127.0.0.1:4010`, `ENOTFOUND api.example.test`: the innermost error in the
 * `cause` chain (or an `AggregateError`'s first) that carries a Node error code; with its
 * address and port when it names them.
 */
export function systemCauseOf(error: unknown): string | undefined {
  let found: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && isObject(current); depth += 1) {
    const described = describe(current);
    if (described !== undefined) found = described;
    const next: unknown = current['cause'];
    if (isObject(next)) {
      current = next;
      continue;
    }
    const errors = current['errors'];
    current = Array.isArray(errors) ? errors[0] : undefined;
  }
  return found;
}

function describe(node: Record<string, unknown>): string | undefined {
  const code = node['code'];
  if (typeof code !== 'string' || !/^E[A-Z0-9_]+$/.test(code)) return undefined;
  const first = Array.isArray(node['errors']) ? node['errors'][0] : undefined;
  const source = isObject(first) && node['address'] === undefined ? first : node;
  const address = source['address'] ?? source['hostname'];
  const port = source['port'];
  if (typeof address !== 'string') return code;
  const host = address.includes(':') ? `[${address}]` : address;
  return typeof port === 'number' || typeof port === 'string'
    ? `${code} ${host}:${port}`
    : `${code} ${host}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
