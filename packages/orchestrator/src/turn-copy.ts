/**
 * The user-facing text of outcomes that are not a model's reply and not one error kind. Like
 * `userMessage` per kind, it never contains provider text (CWE-209). Override any of it with
 * `OrchestratorOptions.copy`.
 */
export interface TurnCopy {
  /** The gateway is restarting: a running turn was stopped and should be sent again. */
  restartNotice: string;
  /** The turn made `maxSteps` model calls without finishing. */
  stepCapReached: string;
  /** The model was switched more often during one turn than `maxModelSwitches` allows. */
  modelSwitchLimit: string;
  /** The conversation was too long and could not be compacted; nothing was lost. */
  compactionFailed: string;
  /** The turn ran past its total deadline. */
  deadlineReached: string;
  /** The model's reply passed `maxReplyBytes`; none of it was kept. */
  replyTooLarge: string;
}

export const DEFAULT_TURN_COPY: Readonly<TurnCopy> = Object.freeze({
  restartNotice:
    'The service restarted while your message was being answered. Please send it again.',
  stepCapReached:
    'I stopped after reaching the step limit for one message without finishing. Send a message to continue.',
  modelSwitchLimit:
    'The model was switched several times while your message was being answered, so I stopped. Your latest model choice is kept; please send your message again.',
  compactionFailed:
    'The conversation is too long for the model, and it could not be summarized right now. Nothing was lost; please try again in a moment.',
  deadlineReached: 'Answering took too long, so I stopped. Please try again.',
  replyTooLarge:
    'The answer grew longer than this service accepts for one reply, so I stopped it and kept none of it. Please ask for a shorter answer, or for it in parts.',
});
