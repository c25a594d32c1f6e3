/**
 * Whether a request asks the model to continue its own message (a prefill): its last message is
 * the assistant's. Some models reject that; a `MockMatch.prefill` filter plays them.
 */
export function isPrefill(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false; // no list, or a Responses `input` string
  const last: unknown = messages[messages.length - 1];
  if (last === null || typeof last !== 'object') return false;
  return (last as { role?: unknown }).role === 'assistant';
}
