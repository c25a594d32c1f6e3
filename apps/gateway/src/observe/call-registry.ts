/**
 * The compatible endpoints' calls that are running now, by call id, with the client's wire and
 * route: CompatContext.call fills it before the call starts and empties it once the call ended,
 * so the observers (metrics, spans, the event and call logs) learn the wire from the gateway
 * itself, never from the shape of an id a session's client may choose.
 */
export type ApiName = 'sessions' | 'openai' | 'anthropic';

export interface CallInfo {
  /** The client's wire. */
  api: Exclude<ApiName, 'sessions'>;
  /** The route the client named (a route name or `providerId/model`). */
  route: string;
  /** The client key that made the call, when keys are configured. */
  key?: string;
}

export interface CallRegistry {
  /** Registers a running call; returns the function that forgets it. */
  begin(callId: string, info: CallInfo): () => void;
  /** The running call of that id, if any. */
  get(callId: string): CallInfo | undefined;
  /** The API an event's `sessionId` belongs to: a running call's wire, else `sessions`. */
  apiOf(sessionId: string): ApiName;
}

export function createCallRegistry(): CallRegistry {
  const running = new Map<string, CallInfo>();
  return {
    begin(callId, info) {
      running.set(callId, info);
      return () => {
        if (running.get(callId) === info) running.delete(callId);
      };
    },
    get: (callId) => running.get(callId),
    apiOf: (sessionId) => running.get(sessionId)?.api ?? 'sessions',
  };
}
