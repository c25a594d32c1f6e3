import type { TurnOutcome, Usage } from '@keel/spec';
import { type PriceBook, turnCost } from '../observe/cost-of';

/** The contract's answer to a message: an `aborted` turn (shutdown) answers `error`. */
export interface OutcomeBody {
  messageId: string;
  clientMessageId?: string;
  turnId: string;
  outcome: 'reply' | 'resend' | 'error';
  text: string;
  model?: string;
  provider?: string;
  errorKind?: string;
  retryAfterMs?: number;
  staleReply?: string;
  /** Tokens of every attempt of the turn, added up, when the providers reported them. */
  usage?: Usage;
  /** What those tokens cost in USD, when every model that reported them has prices. */
  costUsd?: number;
}

export function outcomeBody(outcome: TurnOutcome, prices: PriceBook = new Map()): OutcomeBody {
  const costUsd = turnCost(outcome, prices);
  return {
    messageId: outcome.messageId,
    ...(outcome.clientMessageId === undefined ? {} : { clientMessageId: outcome.clientMessageId }),
    turnId: outcome.turnId,
    outcome: outcome.kind === 'aborted' ? 'error' : outcome.kind,
    text: outcome.text,
    ...(outcome.model === undefined ? {} : { model: outcome.model }),
    ...(outcome.provider === undefined ? {} : { provider: outcome.provider }),
    ...(outcome.errorKind === undefined ? {} : { errorKind: outcome.errorKind }),
    ...(outcome.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.retryAfterMs }),
    ...(outcome.staleReply === undefined ? {} : { staleReply: outcome.staleReply }),
    ...(outcome.usage === undefined ? {} : { usage: outcome.usage }),
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}

/** `Retry-After` in whole seconds, rounded up, when the outcome says how long to wait. */
export function retryAfterHeader(outcome: TurnOutcome): Record<string, string> {
  return outcome.retryAfterMs === undefined
    ? {}
    : { 'retry-after': String(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000))) };
}
