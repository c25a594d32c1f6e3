import type { ErrorKind } from '@keel/error-classification';

/** What the CLI told us about a failed run. Every field is optional. */
export interface CliErrorFacts {
  /** `api_error_status` of the `result`, or the status in an `API Error: <status>` text. */
  status?: number;
  /** `api_error_type` of the `result` (`overloaded_error`, `rate_limit_error`, …) or the CLI's `error` code. */
  errorType?: string;
  /** Result text, `errors[]` and stderr, joined. */
  text?: string;
}

const typeKinds: Record<string, ErrorKind> = {
  overloaded_error: 'overloaded',
  overloaded: 'overloaded',
  rate_limit_error: 'rate_limit',
  rate_limit: 'rate_limit',
  authentication_error: 'auth',
  authentication_failed: 'auth',
  permission_error: 'auth',
  billing_error: 'billing',
  insufficient_quota: 'billing',
  not_found_error: 'model_not_found',
  invalid_request_error: 'invalid_request',
  invalid_request: 'invalid_request',
  api_error: 'server_error',
  server_error: 'server_error',
  timeout_error: 'timeout',
};

const textRules: Array<[RegExp, ErrorKind]> = [
  [/credit balance|insufficient[_ ]quota|billing/i, 'billing'],
  [/prompt is too long|context (?:length|window)|too many tokens/i, 'context_overflow'],
  [/overloaded/i, 'overloaded'],
  [/rate[_ ]limit|too many requests/i, 'rate_limit'],
  [/invalid (?:x-)?api[_ -]key|authentication|unauthori[sz]ed|\/login|forbidden/i, 'auth'],
  [/model\b.*\b(?:not found|does not exist|not_found)/i, 'model_not_found'],
  [/timed? ?out|timeout/i, 'timeout'],
];

function kindOfStatus(status: number): ErrorKind | undefined {
  if (status === 529) return 'overloaded';
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'billing';
  if (status === 404) return 'model_not_found';
  if (status === 408) return 'timeout';
  if (status === 413) return 'context_overflow';
  if (status >= 500 && status <= 599) return 'server_error';
  if (status >= 400 && status <= 499) return 'invalid_request';
  return undefined;
}

/**
 * The taxonomy kind of a failed CLI run. Text that names a more specific cause wins over a
 * generic status (billing wording on a 429, "prompt is too long" on a 400, overload on a 5xx).
 */
export function cliErrorKind(facts: CliErrorFacts): ErrorKind {
  const text = facts.text ?? '';
  const status = facts.status ?? Number(/API Error: (\d{3})\b/.exec(text)?.[1] ?? Number.NaN);
  const byType = facts.errorType === undefined ? undefined : typeKinds[facts.errorType];
  const byStatus = Number.isNaN(status) ? undefined : kindOfStatus(status);
  const byText = textRules.find(([pattern]) => pattern.test(text))?.[1];
  const generic = byType ?? byStatus;
  if (byText === 'billing' || byText === 'context_overflow') return byText;
  if (byText === 'overloaded' && (generic === undefined || generic === 'server_error')) {
    return 'overloaded';
  }
  return generic ?? byText ?? 'unknown';
}
