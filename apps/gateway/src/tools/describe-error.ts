/** `fetch failed (ECONNREFUSED 127.0.0.1:3001)`: the cause is named, not only "fetch failed". */
export function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown }) : undefined;
  if (cause === undefined || cause === null || typeof cause !== 'object') return message;
  const said = typeof cause.message === 'string' ? cause.message : '';
  const code = typeof cause.code === 'string' ? cause.code : '';
  const detail = said.includes(code) ? said : `${code} ${said}`.trim();
  return detail === '' || message.includes(detail) ? message : `${message} (${detail})`;
}
