const REDACTED = '[redacted]';
/**
 * Secrets at least this long are replaced wherever they appear. Shorter ones are replaced only
 * where they stand alone (no letter or digit touching either end): a 5-character key still never
 * reaches a log line, while the same letters inside a longer word stay readable.
 */
const SHORT_SECRET_LENGTH = 8;

/**
 * A function that replaces every given secret in a text with `[redacted]`: as written, and as
 * it appears inside a JSON string. Longest first, so no secret is left half replaced.
 */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const long = new Set<string>();
  const short = new Set<string>();
  for (const secret of secrets) {
    if (secret === '') continue;
    for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) {
      (form.length >= SHORT_SECRET_LENGTH ? long : short).add(form);
    }
  }
  const ordered = [...long].sort(byLengthDescending);
  const standalone =
    short.size === 0
      ? undefined
      : new RegExp(
          `(?<![A-Za-z0-9])(?:${[...short].sort(byLengthDescending).map(escapeRegExp).join('|')})(?![A-Za-z0-9])`,
          'g',
        );
  return (text) => {
    const out = ordered.reduce((line, secret) => line.split(secret).join(REDACTED), text);
    return standalone === undefined ? out : out.replace(standalone, REDACTED);
  };
}

function byLengthDescending(a: string, b: string): number {
  return b.length - a.length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
