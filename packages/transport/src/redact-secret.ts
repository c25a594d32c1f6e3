const REDACTED = '[redacted]';
const MAX_DEPTH = 5;

function redactText(text: string, secret: string): string {
  return text.split(secret).join(REDACTED);
}

function redactValue(value: unknown, secret: string): unknown {
  if (typeof value === 'string') return redactText(value, secret);
  if (typeof value !== 'object' || value === null) return value;
  const json = JSON.stringify(value);
  return json.includes(secret) ? JSON.parse(redactText(json, secret)) : value;
}

/**
 * Removes `secret` from an error's `message`, `stack` and every own field (provider body,
 * `apiMessage`, …), down its `cause` chain, in place: the error keeps its class, so
 * classification is unchanged.
 */
export function redactSecret<T>(error: T, secret: string | undefined): T {
  if (secret === undefined || secret.length < 4) return error;
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH; depth += 1) {
    if (typeof current !== 'object' || current === null) break;
    const record = current as Record<string, unknown>;
    const keys = new Set(['message', 'stack', ...Object.keys(record)]);
    keys.delete('cause');
    for (const key of keys) {
      try {
        const value = record[key];
        const redacted = redactValue(value, secret);
        if (redacted !== value) record[key] = redacted;
      } catch {
        // A read-only or unserialisable field: leave it.
      }
    }
    current = record['cause'];
  }
  return error;
}
