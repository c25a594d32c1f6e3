/** Node system error, undici and Node stream codes as logs spell them (`read ECONNRESET`). */
const NODE_CODES =
  /\b(?:E(?:CONNRESET|CONNREFUSED|CONNABORTED|PIPE|NOTFOUND|AI_AGAIN|HOSTUNREACH|HOSTDOWN|NETUNREACH|NETDOWN|NETRESET|TIMEDOUT|SOCKETTIMEDOUT)|UND_ERR_[A-Z_]+|ERR_STREAM_PREMATURE_CLOSE)\b/g;

/** gRPC status names where a message states one (`8 RESOURCE_EXHAUSTED: …`). */
const GRPC_STATUSES =
  /\b(?:RESOURCE_EXHAUSTED|DEADLINE_EXCEEDED|UNAVAILABLE|PERMISSION_DENIED|UNAUTHENTICATED|INVALID_ARGUMENT|FAILED_PRECONDITION|NOT_FOUND|INTERNAL)(?=:)/g;

/** AWS exception names (`ThrottlingException: …`, `An error occurred (AccessDeniedException)`). */
const EXCEPTION_NAMES = /\b[A-Z][A-Za-z]*Exception\b/g;

/** At most this many of each are taken from one message. */
const MAX_PER_MESSAGE = 8;

function firstMatches(text: string, pattern: RegExp): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(pattern)) {
    if (!found.includes(match[0])) found.push(match[0]);
    if (found.length >= MAX_PER_MESSAGE) break;
  }
  return found;
}

/**
 * Machine codes and exception names that a message states in its text, for errors that reach
 * us only as log lines: Node and undici codes (`connect ECONNREFUSED 127.0.0.1:443`,
 * `code: 'UND_ERR_SOCKET'`), gRPC statuses (`8 RESOURCE_EXHAUSTED: …`) and AWS exception names
 * (`ThrottlingException: …`). Case-sensitive: prose does not spell words this way.
 */
export function codesInText(text: string): { codes: string[]; names: string[] } {
  return {
    codes: [...firstMatches(text, NODE_CODES), ...firstMatches(text, GRPC_STATUSES)],
    names: firstMatches(text, EXCEPTION_NAMES),
  };
}
