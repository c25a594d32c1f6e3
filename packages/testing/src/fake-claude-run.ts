import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { type FakeClaudeArgs, parseFakeClaudeArgs } from './fake-claude-args';
import { createFakeClaudeTranscript, type FakeClaudeTranscript } from './fake-claude-transcript';
import type {
  FakeClaudeLogEntry,
  FakeClaudeResult,
  FakeClaudeScenario,
  FakeClaudeStep,
  FakeClaudeTurn,
} from './fake-claude-types';

/** Environment variable naming the scenario JSON file. */
export const FAKE_CLAUDE_SCRIPT_ENV = 'KEEL_FAKE_CLAUDE_SCRIPT';
/** Environment variable naming the call log (JSON lines of `FakeClaudeLogEntry`). */
export const FAKE_CLAUDE_LOG_ENV = 'KEEL_FAKE_CLAUDE_LOG';

function log(entry: FakeClaudeLogEntry): void {
  const path = process.env[FAKE_CLAUDE_LOG_ENV];
  if (path) appendFileSync(path, `${JSON.stringify(entry)}\n`);
}

function emit(record: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

/** Picks the next turn of the scenario; the turn counter lives beside the scenario file. */
function nextTurn(): { turn: FakeClaudeTurn; index: number } {
  const scriptPath = process.env[FAKE_CLAUDE_SCRIPT_ENV];
  if (!scriptPath) return { turn: {}, index: 0 };
  const scenario = JSON.parse(readFileSync(scriptPath, 'utf8')) as FakeClaudeScenario;
  const statePath = `${scriptPath}.state`;
  const index = existsSync(statePath) ? Number(readFileSync(statePath, 'utf8')) || 0 : 0;
  writeFileSync(statePath, String(index + 1));
  const turns = scenario.turns ?? [];
  return { turn: turns[Math.min(index, turns.length - 1)] ?? {}, index };
}

function keepAlive(): void {
  setInterval(() => {}, 1 << 30);
}

interface RunState {
  sessionId: string;
  model: string;
  transcript: FakeClaudeTranscript;
  texts: string[];
  messageId: string;
  runningTool: { id: string; assistantUuid: string; child: ChildProcess } | undefined;
}

function assistantBlock(state: RunState, block: Record<string, unknown>): string {
  const uuid = state.transcript.assistantBlock(state.messageId, state.model, block);
  emit({
    type: 'assistant',
    message: {
      id: state.messageId,
      type: 'message',
      role: 'assistant',
      model: state.model,
      content: [block],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
    parent_tool_use_id: null,
    session_id: state.sessionId,
    uuid,
  });
  return uuid;
}

function toolResult(
  state: RunState,
  toolUseId: string,
  content: string,
  isError: boolean,
  uuid: string,
): void {
  state.transcript.toolResult(toolUseId, content, isError, uuid);
  emit({
    type: 'user',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError }],
    },
    parent_tool_use_id: null,
    session_id: state.sessionId,
    uuid: randomUUID(),
  });
}

function emitResult(state: RunState, turn: FakeClaudeTurn, result: FakeClaudeResult): void {
  const isError = result.isError ?? false;
  emit({
    type: 'result',
    subtype: result.subtype ?? 'success',
    is_error: isError,
    duration_ms: 1,
    duration_api_ms: 1,
    num_turns: 1,
    result: result.text ?? state.texts.join(''),
    session_id: state.sessionId,
    total_cost_usd: 0,
    usage: {
      input_tokens: turn.usage?.inputTokens ?? 10,
      output_tokens: turn.usage?.outputTokens ?? 5,
    },
    api_error_status: result.apiErrorStatus ?? null,
    ...(result.apiErrorType === undefined ? {} : { api_error_type: result.apiErrorType }),
    ...(result.errors === undefined ? {} : { errors: result.errors }),
    uuid: randomUUID(),
  });
}

/** Plays one step; returns `stop` when the run must not go on (exit or hang). */
function playStep(state: RunState, turn: FakeClaudeTurn, step: FakeClaudeStep): 'next' | 'stop' {
  switch (step.type) {
    case 'text':
      state.texts.push(step.text);
      assistantBlock(state, { type: 'text', text: step.text });
      return 'next';
    case 'tool_use': {
      const id = step.id ?? `toolu_fake_${randomUUID().slice(0, 8)}`;
      // A hanging tool's process starts (and is logged) before its tool_use is announced, so
      // whoever reacts to the announcement can rely on the log.
      const child = step.hang
        ? spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], {
            detached: true,
            stdio: 'ignore',
          })
        : undefined;
      if (child?.pid !== undefined) log({ type: 'child', pid: child.pid, parentPid: process.pid });
      const uuid = assistantBlock(state, {
        type: 'tool_use',
        id,
        name: step.name,
        input: step.input ?? {},
      });
      if (child !== undefined) {
        state.runningTool = { id, assistantUuid: uuid, child };
        keepAlive();
        return 'stop';
      }
      toolResult(state, id, step.result ?? 'ok', step.isError ?? false, uuid);
      state.messageId = `msg_fake_${randomUUID().slice(0, 12)}`;
      return 'next';
    }
    case 'stderr':
      process.stderr.write(step.text);
      return 'next';
    case 'silence':
      keepAlive();
      return 'stop';
    case 'exit':
      process.exit(step.code);
      return 'stop';
    case 'api-error': {
      const text = `API Error: ${step.status} ${step.message}`;
      const synthetic: RunState = { ...state, model: '<synthetic>', messageId: randomUUID() };
      assistantBlock(synthetic, { type: 'text', text });
      emitResult(state, turn, {
        isError: true,
        text,
        apiErrorStatus: step.status,
        ...(step.errorType === undefined ? {} : { apiErrorType: step.errorType }),
      });
      process.exit(1);
      return 'stop';
    }
    default: {
      const unreachable: never = step;
      throw new Error(`unknown step ${JSON.stringify(unreachable)}`);
    }
  }
}

function onSigterm(state: RunState, turn: FakeClaudeTurn): void {
  process.on('SIGTERM', () => {
    log({ type: 'signal', pid: process.pid, signal: 'SIGTERM' });
    if (turn.onSigterm === 'ignore') return;
    const finish = () => {
      const tool = state.runningTool;
      if (tool) {
        if (tool.child.pid !== undefined) {
          try {
            process.kill(-tool.child.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        toolResult(state, tool.id, 'Exit code 143', true, tool.assistantUuid);
      }
      process.exit(143);
    };
    if (turn.sigtermCleanupMs === undefined) finish();
    else setTimeout(finish, turn.sigtermCleanupMs);
  });
}

function missingSession(args: FakeClaudeArgs, sessionId: string): never {
  const message = `No conversation found with session ID: ${sessionId}`;
  if (args.outputFormat === 'stream-json') {
    emit({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      num_turns: 0,
      session_id: sessionId,
      errors: [message],
    });
  }
  process.stderr.write(message);
  process.exit(1);
}

/** All of stdin, as the real CLI reads a `-p` prompt given no prompt argument. */
async function readStdin(): Promise<string> {
  process.stdin.setEncoding('utf8');
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

/**
 * Runs the fake CLI with these arguments (the bin passes `process.argv.slice(2)`). Like the real
 * CLI, `-p` without a prompt argument reads the prompt from stdin (unless it is a terminal).
 */
export function runFakeClaude(argv: readonly string[]): void {
  const args = parseFakeClaudeArgs(argv);
  if (args.prompt !== undefined || !args.print || process.stdin.isTTY) {
    play(argv, args, args.prompt ?? '');
    return;
  }
  void readStdin().then((prompt) => play(argv, args, prompt));
}

function play(argv: readonly string[], args: FakeClaudeArgs, prompt: string): void {
  const { turn, index } = nextTurn();
  const home = process.env['HOME'] ?? homedir();
  const cwd = process.cwd();
  const maxRetries = process.env['CLAUDE_CODE_MAX_RETRIES'];
  log({
    type: 'call',
    pid: process.pid,
    argv: [...argv],
    prompt,
    cwd,
    home,
    turn: index,
    envNames: Object.keys(process.env).sort(),
    ...(maxRetries === undefined ? {} : { maxRetries }),
  });
  const sessionId = args.resume ?? turn.sessionId ?? randomUUID();
  const transcript = createFakeClaudeTranscript({ home, cwd, sessionId });
  if (args.resume !== undefined && !transcript.exists()) missingSession(args, sessionId);
  const state: RunState = {
    sessionId,
    model: args.model ?? turn.model ?? 'claude-fake-1',
    transcript,
    texts: [],
    messageId: `msg_fake_${randomUUID().slice(0, 12)}`,
    runningTool: undefined,
  };
  onSigterm(state, turn);
  if (!turn.skipInit) {
    emit({
      type: 'system',
      subtype: 'init',
      cwd,
      session_id: sessionId,
      tools: args.allowedTools,
      mcp_servers: [],
      model: state.model,
      permissionMode: 'default',
      apiKeySource: 'none',
      claude_code_version: '2.1.332-fake',
      uuid: randomUUID(),
    });
  }
  transcript.userPrompt(prompt);
  for (const step of turn.steps ?? [{ type: 'text', text: 'fake reply' }]) {
    if (playStep(state, turn, step) === 'stop') return;
  }
  transcript.meta({ type: 'last-prompt', lastPrompt: prompt, sessionId });
  const result = turn.result ?? {};
  if (result !== false) emitResult(state, turn, result);
  const failed = result !== false && result.isError === true;
  process.exit(turn.exitCode ?? (failed ? 1 : 0));
}
