import { randomUUID } from 'node:crypto';
import { classifyError } from '@keel/error-classification';
import {
  claudeCliTranscriptHasAssistant,
  resolveClaudeCliTranscriptPath,
} from '@keel/session-fence';
import type { ModelCallOptions, ModelCapabilities, ModelEvent, ModelRequest } from '@keel/spec';
import { createAttemptWatchdog } from '../attempt-watchdog';
import { callHook } from '../call-hook';
import { finalError } from '../final-error';
import type { RequestInfo, Transport } from '../types';
import { type BindingStore, createMemoryBindingStore } from './binding-store';
import { buildCliPrompt, type ReseedContext, splitPendingMessages } from './build-cli-prompt';
import { cliProjectsRoot } from './check-cli-binding';
import { checkCliRequest } from './check-cli-request';
import type { ClaudeCliTransportOptions } from './claude-cli-options';
import { cliArgs } from './cli-args';
import { cliFailure, secretValues, timeoutAfterTools } from './cli-failure';
import { type CliExit, type CliProcess, spawnCliProcess } from './cli-process';
import { type CliStreamMapper, createCliStreamMapper } from './cli-stream-mapper';
import { parseCliMessage } from './parse-cli-message';
import { resolveCliBinding } from './resolve-cli-binding';

const DEFAULT_ABORT_GRACE_MS = 5_000;
const DEFAULT_NO_OUTPUT_TIMEOUT_MS = 300_000;
const DEFAULT_STDERR_LIMIT = 16_384;
const DEFAULT_RESEED_MAX_CHARS = 24_000;

/** The CLI runs its own tools (its `tool-call` events are records) and resumes its own sessions. */
const CLAUDE_CLI_CAPABILITIES: ModelCapabilities = Object.freeze({
  runsOwnTools: true,
  bindsSessions: true,
});

function childEnv(
  overrides: Record<string, string | undefined> | undefined,
  maxRetries: number | undefined,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(overrides ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  // The CLI's own API retries; a retry pin (maxRetries 0) must reach them too.
  if (maxRetries !== undefined) env['CLAUDE_CODE_MAX_RETRIES'] = String(maxRetries);
  return env;
}

/**
 * The Claude Code CLI as a transport: one `claude -p --output-format stream-json --verbose`
 * run per call, resumed with `--resume` while the gateway session's binding is valid, and
 * started fresh (with the prior context reseeded into the prompt) when it is not.
 */
export function createClaudeCliTransport(options: ClaudeCliTransportOptions = {}): Transport {
  const provider = options.provider ?? 'claude-cli';
  const command = options.command ?? 'claude';
  const bindings: BindingStore = options.bindings ?? createMemoryBindingStore();
  const graceMs = options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS;

  async function* stream(
    request: ModelRequest,
    callOptions: ModelCallOptions = {},
  ): AsyncGenerator<ModelEvent> {
    const sessionId = callOptions.sessionId;
    const cwd = options.cwd ?? process.cwd();
    const env = childEnv(options.env, callOptions.maxRetries);
    const secrets = secretValues(env);
    const projectsRoot = options.projectsRoot ?? cliProjectsRoot(env);
    const info: RequestInfo = {
      provider,
      api: 'claude-cli',
      model: request.model ?? options.model ?? 'default',
      url: `cli:${command.split(/[\\/]/).pop() ?? command}`,
      attemptId: randomUUID(),
    };
    const watchdog = createAttemptWatchdog({
      signal: callOptions.signal,
      timeoutMs: callOptions.timeoutMs,
      firstTokenTimeoutMs: callOptions.firstTokenTimeoutMs,
      stallTimeoutMs:
        callOptions.stallTimeoutMs ?? options.noOutputTimeoutMs ?? DEFAULT_NO_OUTPUT_TIMEOUT_MS,
    });
    const started = performance.now();
    const elapsedMs = () => Math.round(performance.now() - started);
    let cli: CliProcess | undefined;
    let exit: CliExit | undefined;
    let cliSessionId: string | undefined;
    let mapper: CliStreamMapper | undefined;
    callHook(options.hooks?.onRequestStart, () => ({ ...info }));
    try {
      if (watchdog.signal.aborted) throw watchdog.signal.reason;
      checkCliRequest(request);
      const binding = await resolveCliBinding({
        bindings,
        sessionId,
        projectsRoot,
        cwd,
        orphanPolicy: options.orphanPolicy ?? 'reseed',
        signal: watchdog.signal,
      });
      const { resumeId } = binding;
      if (binding.resumeId === undefined && binding.invalidated !== undefined) {
        yield binding.invalidated;
      }
      const { prior, pending } = splitPendingMessages(request.messages);
      let reseed: ReseedContext | undefined;
      if (binding.resumeId === undefined) {
        reseed = options.reseed?.load
          ? await options.reseed.load({
              sessionId,
              request,
              reason: binding.reason,
              signal: watchdog.signal,
            })
          : { messages: prior };
      }
      const prompt = buildCliPrompt({
        latest: pending,
        ...(reseed === undefined ? {} : { reseed }),
        maxChars: options.reseed?.maxChars ?? DEFAULT_RESEED_MAX_CHARS,
      });
      const args = cliArgs({
        resumeId,
        model: request.model ?? options.model,
        system: request.system,
        extraArgs: options.extraArgs,
        allowedTools: options.allowedTools,
      });
      watchdog.signal.throwIfAborted();
      const running = spawnCliProcess({
        command,
        args,
        cwd,
        env,
        stdin: prompt,
        stderrLimit: options.stderrLimit ?? DEFAULT_STDERR_LIMIT,
      });
      cli = running;
      watchdog.signal.addEventListener('abort', () => void running.terminate(graceMs), {
        once: true,
      });
      const run = createCliStreamMapper({ sessionId, resumed: resumeId !== undefined });
      mapper = run;
      let first = true;
      while (exit === undefined) {
        watchdog.waitForChunk();
        const output = await running.next();
        watchdog.chunkReceived();
        if (output.type === 'exit') {
          exit = output;
          break;
        }
        if (watchdog.signal.aborted) continue;
        const message = parseCliMessage(output.line);
        if (message === undefined) continue;
        const events = run.map(message);
        cliSessionId = run.cliSessionId;
        for (const event of events) {
          if (first && event.type !== 'session-bound') {
            watchdog.firstEvent();
            first = false;
          }
          yield event;
        }
      }
      if (watchdog.signal.aborted) throw watchdog.signal.reason;
      const failure = cliFailure({
        command,
        exit,
        result: run.result,
        syntheticTexts: run.syntheticTexts,
        stderr: running.stderr(),
        secrets,
        cliSessionId,
      });
      if (failure !== undefined) throw failure;
      yield* run.finish();
      callHook(options.hooks?.onResponse, () => ({
        ...info,
        status: undefined,
        elapsedMs: elapsedMs(),
      }));
    } catch (error) {
      const thrown = timeoutAfterTools(
        finalError(error, { signal: callOptions.signal, timeout: watchdog.timeout }),
        { toolCallIds: mapper?.toolCallIds ?? [], cliSessionId },
      );
      callHook(options.hooks?.onRequestError, () => ({
        ...info,
        status: undefined,
        elapsedMs: elapsedMs(),
        errorKind: classifyError(thrown, { signal: callOptions.signal }).kind,
      }));
      throw thrown;
    } finally {
      watchdog.dispose();
      // The consumer stopped early, or the call failed: nothing the CLI started may outlive it.
      if (cli !== undefined && (exit === undefined || watchdog.signal.aborted)) {
        await cli.terminate(graceMs);
      }
      if (sessionId !== undefined && cliSessionId !== undefined) {
        await bindAfterRun(bindings, { sessionId, cliSessionId, cwd, projectsRoot });
      }
    }
  }

  return {
    specificationVersion: 'v1',
    api: 'claude-cli',
    provider,
    capabilities: CLAUDE_CLI_CAPABILITIES,
    stream,
  };
}

/** Binds the session to the CLI session that ran, if that session has anything to resume. */
async function bindAfterRun(
  bindings: BindingStore,
  run: { sessionId: string; cliSessionId: string; cwd: string; projectsRoot: string },
): Promise<void> {
  try {
    const path = resolveClaudeCliTranscriptPath({
      projectsRoot: run.projectsRoot,
      cwd: run.cwd,
      sessionId: run.cliSessionId,
    });
    if (!(await claudeCliTranscriptHasAssistant(path))) return;
    await bindings.set(run.sessionId, {
      cliSessionId: run.cliSessionId,
      cwd: run.cwd,
      boundAt: new Date().toISOString(),
    });
  } catch {
    // Without a binding the next turn starts fresh and reseeds: degraded, never wrong.
  }
}
