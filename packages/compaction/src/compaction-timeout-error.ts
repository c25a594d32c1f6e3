/**
 * Internal: raised when a model call or a provider call exceeds the time compaction gives it.
 * `keelKind: 'timeout'` makes `classifyError` see a timeout, not a provider-side abort.
 */
export class CompactionTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  readonly keelKind = 'timeout';
}
