import type { CompactionProvider } from './compaction';
import type { ErrorKind } from './error-kind';
import type { ToolDefinition } from './model';
import type {
  ToolCall,
  ToolCallContext,
  ToolCallResult,
  TurnEvent,
  TurnHooks,
} from './orchestrator';

/**
 * An application rule for the error classifier, as a plugin contributes it: the first rule that
 * returns a match decides the kind (before the built-in rules). `@keel/error-classification`'s
 * `createClassifier({ rules })` takes it as it is. Must not throw (a throwing rule is skipped).
 */
export interface PluginClassifierRule {
  readonly name: string;
  match(
    error: unknown,
    context: { readonly signal?: AbortSignal },
  ):
    | ErrorKind
    | { kind: ErrorKind; status?: number; retryAfterMs?: number; code?: string; message?: string }
    | undefined;
}

/** A tool a plugin offers the model, with the code that runs it. */
export interface PluginTool {
  readonly definition: ToolDefinition;
  run(call: ToolCall, context: ToolCallContext): Promise<ToolCallResult>;
}

/**
 * A Keel plugin, version 1: what a third party contributes to a gateway by configuration
 * (`"plugins": ["package-or-path", …]`). Every contribution is optional. A plugin module's default
 * export is the plugin, or a function of the configured options that returns one.
 * - `compactionProviders` register under their ids; `compaction.providers` names which run;
 * - `classifierRules` run before the built-in classification;
 * - `tools` are offered to the model and run by the orchestrator;
 * - `onEvent` observes every turn event (a throw is caught, logged and counted; the turn goes on);
 * - `hooks` join the orchestrator's turn hooks (see `TurnHooks` for what each may do).
 */
export interface KeelPlugin {
  readonly specificationVersion: 'v1';
  /** Unique among the loaded plugins; named in errors, logs and metrics. */
  readonly name: string;
  readonly compactionProviders?: readonly CompactionProvider[];
  readonly classifierRules?: readonly PluginClassifierRule[];
  readonly tools?: readonly PluginTool[];
  onEvent?(event: TurnEvent): void;
  readonly hooks?: Omit<TurnHooks, 'onEvent'>;
}
