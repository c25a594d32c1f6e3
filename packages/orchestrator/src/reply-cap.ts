import { OrchestratorError } from './orchestrator-error';

const MARKER = Symbol.for('keel.error.ReplyTooLargeError');

/** The default `maxReplyBytes`: 4 MiB of a reply's text. */
export const DEFAULT_MAX_REPLY_BYTES = 4_194_304;

/**
 * Why it exists: a model that never stops (or a provider that streams garbage) would otherwise
 * grow one reply without bound in memory, in every follower's stream and then in the transcript.
 * Past `maxReplyBytes` of text (UTF-8) the attempt stops reading: the turn ends `error` with
 * `TurnCopy.replyTooLarge`, no other attempt is made, and nothing of the partial text is stored
 * (streaming clients get a `discard`). Classified `invalid_request`: the request asked for more
 * than this deployment accepts, which another model or a retry would not change.
 */
export class ReplyTooLargeError extends OrchestratorError {
  readonly [MARKER] = true;
  override readonly name: string = 'ReplyTooLargeError';
  readonly keelKind = 'invalid_request' as const;
  readonly maxBytes: number;

  constructor(options: { maxBytes: number }) {
    super({
      message: `The model's reply passed maxReplyBytes (${options.maxBytes} bytes of text)`,
    });
    this.maxBytes = options.maxBytes;
  }

  static override isInstance(error: unknown): error is ReplyTooLargeError {
    return typeof error === 'object' && error !== null && MARKER in error;
  }
}

/** Counts a reply's text as it streams; throws `ReplyTooLargeError` once it passes the cap. */
export function createReplyCap(maxBytes: number): (text: string) => void {
  let bytes = 0;
  return (text) => {
    bytes += Buffer.byteLength(text, 'utf8');
    if (bytes > maxBytes) throw new ReplyTooLargeError({ maxBytes });
  };
}
