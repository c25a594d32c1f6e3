import type { MockScriptEntry } from '@keel/testing';
import { mockFaults } from '@keel/testing';

/** One message of the demo session, with the faults the provider injects for it. */
export interface DemoStep {
  title: string;
  text: string;
  /** Queued on the mock provider just before the message is sent. */
  faults: MockScriptEntry[];
  /** Another writer appends to the session while this message's model call runs. */
  takeover?: boolean;
}

const primary = { model: 'keel-demo' };

/** The scripted session of `pnpm demo`: a reset, an overload, a takeover, a compaction, tools. */
export const DEMO_STEPS: readonly DemoStep[] = [
  {
    title: 'A connection reset: retried once on the same model',
    text: 'Hello! What can you do?',
    faults: [{ behavior: { type: 'reset-before-headers' }, match: primary }],
  },
  {
    title: 'The primary overloaded on both keys: one rotation, then the fallback model',
    text: 'Tell me something about the sea.',
    faults: [
      { behavior: mockFaults.overloaded(), match: { ...primary, apiKey: 'demo-key-a' } },
      { behavior: mockFaults.overloaded(), match: { ...primary, apiKey: 'demo-key-b' } },
    ],
  },
  {
    title: 'Another writer changes the session during the model call: resend, nothing lost',
    text: 'And something about mountains?',
    faults: [{ behavior: { type: 'ok', chunkDelayMs: 150 }, match: { model: 'keel-backup' } }],
    takeover: true,
  },
  {
    title: 'The same message again: answered',
    text: 'And something about mountains?',
    faults: [],
  },
  {
    title: 'The context is too long: compacted through the fence, then retried',
    text: 'Summarize where we are.',
    faults: [{ behavior: mockFaults.promptTooLong(), match: { model: 'keel-backup' } }],
  },
  {
    title: 'A tool call, really run by the gateway',
    text: 'Please roll a d20 for me.',
    faults: [],
  },
];

/** What the demo model says: plain words, and a valid summary when it is asked to summarize. */
export function demoReply(request: { system: unknown; messages: unknown }): string {
  const asked = JSON.stringify(request.system ?? '') + JSON.stringify(request.messages ?? '');
  if (asked.includes('Summarize the conversation so that work can continue')) {
    return [
      '## Goal',
      'The user is chatting about the sea and mountains.',
      '## Constraints',
      'None.',
      '## Decisions',
      'None.',
      '## Progress',
      'Several questions were answered.',
      '## Open items',
      'None.',
      '## Exact identifiers',
      'None.',
    ].join('\n');
  }
  return 'Here is a short, friendly answer from the demo model.';
}
