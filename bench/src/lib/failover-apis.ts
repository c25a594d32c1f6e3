/**
 * The ways the failover scorecard reaches the gateway (issues 18 and 19): its native session API,
 * and the OpenAI-compatible `POST /v1/chat/completions` streamed in `live` and in `buffered`
 * mode. Each scenario runs unchanged through each; only what a client can observe differs.
 */
import { type ChatStreamOptions, streamChat } from './chat-stream';
import type { Check, FailoverApi, Observation } from './failover-scenario';
import { seconds } from './failover-verdict';
import { lastTurnAttempts, type StreamedTurn, streamMessage } from './gateway-turn';

/** `send` under a limit: the streamed turn, or why there is none (a hang, a failed request). */
export async function withLimit(
  limitMs: number,
  send: (signal: AbortSignal) => Promise<StreamedTurn>,
): Promise<{ turn?: StreamedTurn; failure?: string }> {
  try {
    return { turn: await send(AbortSignal.timeout(limitMs)) };
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      return { failure: `no outcome within ${seconds(limitMs)} (a hang)` };
    return { failure: `the request failed: ${(error as Error).message}` };
  }
}

/** `POST /v1/sessions/:id/messages` with `Accept: text/event-stream`, a new session per message. */
export const NATIVE_API: FailoverApi = {
  name: 'native API (`POST /v1/sessions/:id/messages`, streamed)',
  tag: '',
  midStreamVisible: false,
  send: (url, message) =>
    withLimit(message.limitMs, (signal) => streamMessage(url, message.key, message.text, signal)),
  attempts: lastTurnAttempts,
  clientChecks: () => [],
};

/**
 * What a Chat Completions client must be able to trust: a reply ends with `[DONE]` (without it a
 * client cannot tell a complete answer from a cut one), an in-band error never does, and every
 * chunk names the one model that answered.
 */
export function chatChecks(observation: Observation): Check[] {
  const turn = observation.turn;
  if (turn === undefined) return [];
  const models = turn.chunkModels ?? [];
  const reply = turn.answer.outcome === 'reply';
  return [
    {
      ok: !reply || turn.terminal === true,
      required: true,
      detail: 'a reply without [DONE]',
    },
    {
      ok: reply || turn.terminal !== true,
      required: true,
      detail: '[DONE] after an in-band error',
    },
    {
      ok: models.length <= 1,
      required: true,
      detail: `the chunks named ${models.length} models (${models.join(', ')})`,
    },
  ];
}

/**
 * `POST /v1/chat/completions` (`stream: true`, usage asked) with `x-keel-stream-mode: <mode>`, to
 * the scenario's own route (`default`: its primary, then its fallback). Stateless: no attempts
 * are recorded for a client to read, so conduct is judged from the provider's log alone. The
 * healthy probe asks the fallback by name (`providerId/model`): the primary still fails.
 */
export function chatCompletionsApi(mode: ChatStreamOptions['mode']): FailoverApi {
  return {
    name: `\`POST /v1/chat/completions\` (stream: true), \`x-keel-stream-mode: ${mode}\``,
    tag: mode,
    midStreamVisible: mode === 'live',
    send: (url, message) =>
      withLimit(message.limitMs, (signal) =>
        streamChat(url, {
          model: message.probe === true ? message.models.fallbackRef : 'default',
          text: message.text,
          mode,
          signal,
        }),
      ),
    attempts: async () => undefined,
    clientChecks: chatChecks,
  };
}
