import type { BindingInvalidReason, ModelEvent } from '@keel/spec';
import type { BindingStore } from './binding-store';
import { checkCliBinding } from './check-cli-binding';
import type { OrphanPolicy } from './claude-cli-options';

export interface ResolveCliBindingOptions {
  bindings: BindingStore;
  /** The gateway session; without one there is nothing to resume. */
  sessionId: string | undefined;
  projectsRoot: string;
  cwd: string;
  orphanPolicy: OrphanPolicy;
  signal: AbortSignal;
}

export type ResolvedCliBinding =
  /** Resume this CLI session. */
  | { resumeId: string }
  /** Start a fresh CLI session; `invalidated` reports the binding that was dropped, if any. */
  | {
      resumeId: undefined;
      reason: BindingInvalidReason | 'unbound';
      invalidated?: Extract<ModelEvent, { type: 'binding-invalidated' }>;
    };

/**
 * Decides whether this call resumes the session's CLI session: a stored binding is resumed only
 * if its transcript exists and (with the `reseed` orphan policy) does not end in an orphaned
 * `tool_use`; otherwise it is dropped.
 */
export async function resolveCliBinding(
  options: ResolveCliBindingOptions,
): Promise<ResolvedCliBinding> {
  const { sessionId } = options;
  if (sessionId === undefined) return { resumeId: undefined, reason: 'unbound' };
  const binding = await options.bindings.get(sessionId);
  if (binding === undefined) return { resumeId: undefined, reason: 'unbound' };
  const check = await checkCliBinding({
    projectsRoot: options.projectsRoot,
    cwd: options.cwd,
    cliSessionId: binding.cliSessionId,
    orphanPolicy: options.orphanPolicy,
    signal: options.signal,
  });
  if (check.valid) return { resumeId: binding.cliSessionId };
  await options.bindings.delete(sessionId);
  return {
    resumeId: undefined,
    reason: check.reason,
    invalidated: {
      type: 'binding-invalidated',
      sessionId,
      cliSessionId: binding.cliSessionId,
      reason: check.reason,
      ...(check.orphanedToolUseIds === undefined
        ? {}
        : { orphanedToolUseIds: check.orphanedToolUseIds }),
    },
  };
}
