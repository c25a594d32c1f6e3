import type { MessageEntry, TranscriptEntry } from '@keel/spec';
import type { CompactionChunk } from './chunk-messages';
import { chunkMessages } from './chunk-messages';
import { estimateContextTokens, estimateMessageTokens } from './estimate-tokens';
import type { CutBlocker } from './find-cut-point';
import { findCutPoint } from './find-cut-point';
import { selectContext } from './select-context';

export interface CompactionBudgetOptions {
  /** The model's context window, in tokens. */
  contextWindowTokens: number;
  /** Tokens kept free for the next reply and the summary; compaction starts above `window − reserve`. */
  reserveTokens: number;
  /** Recent context kept verbatim after a compaction, in tokens. */
  keepRecentTokens: number;
}

export interface ShouldCompactOptions extends CompactionBudgetOptions {
  /** Estimated tokens of the current context. */
  tokens: number;
}

/**
 * Whether the context is over `contextWindowTokens − reserveTokens` and holds more than
 * `keepRecentTokens`, i.e. compacting would free something.
 */
export function shouldCompact(options: ShouldCompactOptions): boolean {
  const threshold = options.contextWindowTokens - options.reserveTokens;
  return options.tokens > threshold && options.tokens > options.keepRecentTokens;
}

export interface PlanCompactionOptions extends CompactionBudgetOptions {
  /** Largest chunk handed to one summarizer call; default `(window − reserve) / 2`, at least 256. */
  chunkMaxTokens?: number;
}

export interface CompactionPlan {
  /** Estimated tokens of the context now. */
  tokensBefore: number;
  tokenSource: 'usage' | 'chars';
  /** Over the threshold and something can be compacted. */
  shouldCompact: boolean;
  previousSummary: string | undefined;
  /** Messages to summarize, oldest first. */
  compacted: MessageEntry[];
  /** Messages kept verbatim, oldest first. */
  kept: MessageEntry[];
  /** Id of `kept[0]`, or `null` when nothing is kept. */
  firstKeptEntryId: string | null;
  compactedTokens: number;
  keptTokens: number;
  /** `compacted` split for the summarizer, each within `chunkMaxTokens` unless `oversized`. */
  chunks: CompactionChunk[];
  chunkMaxTokens: number;
  /** When nothing can be compacted: why, in words (the `detail` of a `nothing-to-compact` skip). */
  whyNothingToCompact: string | undefined;
}

function describeBlocker(
  blocker: CutBlocker,
  messages: readonly MessageEntry[],
  tokens: number,
  keepRecentTokens: number,
): string {
  switch (blocker) {
    case 'no-messages':
      return 'no messages in context';
    case 'keep-recent':
      return `keepRecentTokens (${keepRecentTokens}) covers all ${messages.length} messages in context (${tokens} tokens)`;
    case 'latest-request':
      return `only the latest user request and what follows it remain (${messages.length} messages, ${tokens} tokens); the latest request is never compacted`;
    case 'tool-pair':
      return 'every cut before the latest user request would separate a tool_use from its tool_result';
    default: {
      const unreachable: never = blocker;
      return unreachable;
    }
  }
}

/** Default chunk budget for a context window and reserve. */
export function defaultChunkMaxTokens(options: CompactionBudgetOptions): number {
  return Math.max(256, Math.floor((options.contextWindowTokens - options.reserveTokens) / 2));
}

/**
 * Plans a compaction of a transcript. Pure and linear in the transcript's size: reads the live
 * context, estimates tokens, chooses the cut point and chunks the compacted range.
 */
export function planCompaction(
  entries: readonly TranscriptEntry[],
  options: PlanCompactionOptions,
): CompactionPlan {
  const context = selectContext(entries);
  const { messages } = context;
  const tokens = messages.map(estimateMessageTokens);
  const estimate = estimateContextTokens(messages, context.previousSummary);
  const cutPoint = findCutPoint(messages, { keepRecentTokens: options.keepRecentTokens, tokens });
  const cut = cutPoint.index;
  const compacted = messages.slice(0, cut);
  const kept = messages.slice(cut);
  let compactedTokens = 0;
  for (let index = 0; index < cut; index += 1) compactedTokens += tokens[index] ?? 0;
  let keptTokens = 0;
  for (let index = cut; index < tokens.length; index += 1) keptTokens += tokens[index] ?? 0;
  const chunkMaxTokens = options.chunkMaxTokens ?? defaultChunkMaxTokens(options);
  const chunks = chunkMessages(tokens.slice(0, cut), chunkMaxTokens);
  return {
    tokensBefore: estimate.tokens,
    tokenSource: estimate.source,
    shouldCompact: cut > 0 && shouldCompact({ ...options, tokens: estimate.tokens }),
    previousSummary: context.previousSummary,
    compacted,
    kept,
    firstKeptEntryId: kept[0]?.id ?? null,
    compactedTokens,
    keptTokens,
    chunks,
    chunkMaxTokens,
    whyNothingToCompact:
      cutPoint.blockedBy === undefined
        ? undefined
        : describeBlocker(
            cutPoint.blockedBy,
            messages,
            compactedTokens + keptTokens,
            options.keepRecentTokens,
          ),
  };
}
