import type { CompactionAttempt, CompactionEvent, MessageEntry } from '@keel/spec';
import type { CompactionChunk } from './chunk-messages';

/** Internal: what the compactor hands every producer. */
export interface ProduceRequest {
  sessionId: string;
  compacted: readonly MessageEntry[];
  chunks: readonly CompactionChunk[];
  chunkMaxTokens: number;
  previousSummary: string | undefined;
  budgetTokens: number;
  requiredIdentifiers: readonly string[];
  requiredSections: readonly string[];
  focus: string | undefined;
  /** Set on the corrective retry: the rejected summary and why it was rejected. */
  correction?: { rejectedSummary: string; problems: string };
  signal: AbortSignal;
  emit(event: CompactionEvent): void;
}

export type ProduceOutcome =
  | {
      ok: true;
      summary: string;
      calls: number;
      /** The model stopped at its token limit: the summary is cut short and never accepted. */
      cutOff?: boolean;
    }
  | { ok: false; calls: number; attempts: CompactionAttempt[] };

/** Internal: one source of summaries. Rejects only on caller abort (with `signal.reason`). */
export interface Producer {
  readonly id: string;
  produce(request: ProduceRequest): Promise<ProduceOutcome>;
}
