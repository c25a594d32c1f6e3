/** HTTP reason phrases (RFC 9110 and common servers: nginx, Go, Cloudflare's 52x pages). */
const REASON =
  '(?:bad request|unauthori[sz]ed|payment required|forbidden|(?:page )?not found|method not allowed|not acceptable|proxy authentication required|request time-?out|conflict|gone|length required|precondition (?:failed|required)|(?:payload|content|request entity) too large|ur[il] too long|unsupported media type|range not satisfiable|expectation failed|misdirected request|unprocessable (?:entity|content)|failed dependency|too early|upgrade required|too many requests|request header fields too large|unavailable for legal reasons|client closed request|internal server error|not implemented|bad gateway|service (?:temporarily )?unavailable|gateway time-?out|http version not supported|insufficient storage|loop detected|network authentication required|(?:site is )?overloaded|web server is (?:down|returning an unknown error)|connection timed out|origin is unreachable|a timeout occurred|ssl handshake failed|invalid ssl certificate)';

/**
 * Where text says a number is an HTTP status. A number leading the text counts only when what
 * follows looks like an SDK's `<status> <message>` (a JSON body, `status code`, a reason phrase,
 * or a capitalised sentence: `429 You exceeded…`); a number leading prose (`500 tokens
 * remaining`) is a count.
 */
const STATUS_IN_TEXT = [
  new RegExp(
    `^\\s*(?:[A-Za-z]*Error:\\s*)?([45]\\d\\d)(?:\\s*[-:]\\s*|\\s+)(?:[{[]|status code\\b|${REASON}\\b)`,
    'i',
  ),
  /^\s*(?:[A-Za-z]*Error:\s*)?([45]\d\d) ["'`A-Z]/,
  new RegExp(`\\b([45]\\d\\d)(?:\\s*[-:]\\s*|\\s+)${REASON}\\b`, 'i'),
  /\bHTTP\/\d(?:\.\d)?\s+([45]\d\d)\b/i,
  /\b(?:error code|api error|status code|http(?: status)?|got status)[:\s]+([45]\d\d)\b/i,
  /\bstatus(?:[ _]?code)?\s*[=:]\s*([45]\d\d)\b/i,
];

/** The HTTP error status that `text` names, if it names one in a status-like context. */
export function statusFromText(text: string): number | undefined {
  for (const pattern of STATUS_IN_TEXT) {
    const match = pattern.exec(text);
    if (match?.[1]) return Number(match[1]);
  }
  return undefined;
}
