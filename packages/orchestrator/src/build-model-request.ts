import type { Message, ModelRequest, ModelTarget } from '@keel/spec';
import { modelKey } from './model-chain';
import { modelContextOf } from './model-context-of';
import { repairToolPairing } from './repair-tool-pairing';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/** `maxTokens` for the target's model: its `maxOutputTokens`, else the orchestrator's, else none. */
function maxTokensOf(runtime: TurnRuntime, target: ModelTarget): { maxTokens?: number } {
  const { settings } = runtime;
  const own = settings.modelSettings.get(modelKey(target))?.maxOutputTokens;
  const maxTokens = own ?? settings.maxTokens;
  return maxTokens === undefined ? {} : { maxTokens };
}

/**
 * The request for the next model call, built from the transcript as the turn knows it: messages
 * that arrived meanwhile are folded in first (`steer`), the latest compaction summary joins the
 * system prompt, every tool call is paired with a result, then `beforeModelCall` hooks may change it.
 */
export async function buildModelRequest(
  runtime: TurnRuntime,
  turn: LiveTurn,
  target: ModelTarget,
  attempt: number,
  /** The target's port runs its own tools (claude-cli): ours are not offered to it. */
  runsOwnTools = false,
): Promise<ModelRequest> {
  const { settings } = runtime;
  if (turn.request !== undefined)
    return runHooks(runtime, turn, target, attempt, clientRequest(runtime, turn.request, target));
  if (settings.queueMode === 'steer') {
    for (const id of turn.arrived) turn.folded.add(id);
    turn.arrived = [];
  }
  const context = modelContextOf(turn.entries, turn.folded);
  const { messages } = repairToolPairing(context.messages);
  const system = [
    settings.system,
    context.summary === undefined
      ? undefined
      : `Summary of the earlier conversation:\n\n${context.summary}`,
  ]
    .filter((part): part is string => part !== undefined && part !== '')
    .join('\n\n');
  const request: ModelRequest = {
    model: target.model,
    messages,
    ...(system === '' ? {} : { system }),
    ...(runsOwnTools || runtime.tools === undefined || runtime.tools.definitions.length === 0
      ? {}
      : { tools: [...runtime.tools.definitions] }),
    ...maxTokensOf(runtime, target),
  };
  return runHooks(runtime, turn, target, attempt, request);
}

/** A stateless call's request for the target: its conversation, paired, with the model's limit. */
function clientRequest(
  runtime: TurnRuntime,
  request: Omit<ModelRequest, 'model'>,
  target: ModelTarget,
): ModelRequest {
  const { messages } = repairToolPairing(request.messages);
  const limit = request.maxTokens === undefined ? maxTokensOf(runtime, target) : {};
  return { ...request, ...limit, model: target.model, messages };
}

/** `beforeModelCall` hooks, in order, each seeing the request the last one left. */
async function runHooks(
  runtime: TurnRuntime,
  turn: LiveTurn,
  target: ModelTarget,
  attempt: number,
  built: ModelRequest,
): Promise<ModelRequest> {
  let request = built;
  let copied = false;
  for (const hooks of runtime.hooks) {
    if (hooks.beforeModelCall === undefined) continue;
    if (!copied) {
      // The context's messages are shared from call to call (`modelContextOf`): a hook that
      // changes one in place changes its own copy.
      copied = true;
      request = { ...request, messages: request.messages.map(copyMessage) };
    }
    const changed = await hooks.beforeModelCall({
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      attempt,
      target,
      request,
      signal: turn.controller.signal,
    });
    if (changed !== undefined) request = changed;
  }
  return request;
}

function copyMessage(message: Message): Message {
  return { role: message.role, content: message.content };
}
