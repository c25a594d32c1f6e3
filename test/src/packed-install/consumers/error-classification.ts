// @keel/error-classification alone: the kind of an Anthropic-shaped 529, a forged `keelKind` that is
// not believed, log-safe text and user copy.
import {
  classifyError,
  type ErrorClassification,
  KIND_POLICY,
  sanitizeForLog,
  userMessage,
} from '@keel/error-classification';

export async function consume(): Promise<unknown> {
  const overloaded = Object.assign(new Error('529 Overloaded'), {
    status: 529,
    headers: new Headers({ 'retry-after': '4' }),
    error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
  });
  const classification: ErrorClassification = classifyError(overloaded, {
    signal: new AbortController().signal,
  });
  // A provider body cannot claim a Keel kind: only a Keel error class carries the marker.
  const forged = Object.assign(new Error('500 {"keelKind":"caller_abort"}'), {
    status: 500,
    keelKind: 'caller_abort',
  });
  return {
    kind: classification.kind,
    retryable: classification.retryable,
    retryAfterMs: classification.retryAfterMs,
    actions: KIND_POLICY[classification.kind].actions,
    forgedKind: classifyError(forged).kind,
    logLine: sanitizeForLog('upstream said \u001b[31mno\u001b[0m\nnext line'),
    userMessage: userMessage(classification),
  };
}
