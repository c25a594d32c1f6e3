/**
 * The faults a complete streamed answer can still carry, kept apart from the answer itself: an
 * event of cut-off JSON slipped in after some text chunks (`malformedAfterChunks`), and a stream
 * that ends without its last event (`omitTerminalEvent`).
 */
import type { StreamFrame } from './wire-format';

export interface AnswerFrameFaults {
  malformedAfterChunks?: number | undefined;
  omitTerminalEvent?: boolean | undefined;
}

/** `frames` (a complete answer, terminal event last) with the faults applied. */
export function shapeAnswerFrames(frames: StreamFrame[], faults: AnswerFrameFaults): StreamFrame[] {
  const shaped = faults.omitTerminalEvent === true ? frames.slice(0, -1) : [...frames];
  const after = faults.malformedAfterChunks;
  if (after === undefined || shaped.length === 0) return shaped;
  const at = insertionPoint(shaped, after);
  // A copy of the text event that comes next (else the one before) is what gets cut off.
  const next = shaped[at];
  const source = next?.text === true ? next : (shaped[Math.max(0, at - 1)] as StreamFrame);
  shaped.splice(at, 0, cutOff(source));
  return shaped;
}

/** Just after the `after`-th text frame (0: just before the first one; past the last if fewer). */
function insertionPoint(frames: StreamFrame[], after: number): number {
  let at = -1;
  let seen = 0;
  frames.forEach((frame, index) => {
    if (!frame.text) return;
    if (at === -1 && after === 0) at = index;
    seen += 1;
    if (seen <= after) at = index + 1;
  });
  return at === -1 ? Math.min(1, frames.length) : at;
}

/** The same event with its JSON cut in half: `data: {"id":"chatcmpl-mock-1","obj` and a blank line. */
function cutOff(frame: StreamFrame): StreamFrame {
  const start = frame.data.indexOf('data: ') + 'data: '.length;
  const json = frame.data.slice(start).trimEnd();
  const half = json.slice(0, Math.max(1, Math.floor(json.length / 2)));
  return { data: `${frame.data.slice(0, start)}${half}\n\n`, text: false };
}
