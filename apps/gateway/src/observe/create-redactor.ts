const REDACTED = '[redacted]';
/** Shorter values are not treated as secrets (the demo's `demo` key would blank out words). */
const MIN_SECRET_LENGTH = 8;

/**
 * A function that replaces every given secret in a text with `[redacted]`: as written, and as
 * it appears inside a JSON string. Longest first, so no secret is left half replaced.
 */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  return (text) => ordered.reduce((out, secret) => out.split(secret).join(REDACTED), text);
}
