// A message folded into the running turn (`steer`) is part of every later request of that turn, so
// the budget estimate of those requests (budget-gate.ts) counts it too, while the turn's end entry,
// which lists it as steered, is not yet written: the estimate reads the turn's own folded set. The
// message lands during the first tool run; the second request folds it in (its reservation is
// taken before that, without it); the third request's reservation must include it.
import type { TurnOutcome } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';
import { recordingBudgets } from './recording-budgets';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const steered = 'w'.repeat(4_000);
const steeredTokens = Math.ceil(JSON.stringify([{ type: 'text', text: steered }]).length / 4);

describe('the budget estimate of a turn that folded a message in', () => {
  it('counts the folded message in the requests after the one that folded it', async () => {
    const reserved: number[] = [];
    const later: Promise<TurnOutcome>[] = [];
    let queued: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => {
      queued = resolve;
    });
    const lookup = { id: 'tool-1', name: 'lookup', input: {} };
    harness = await createHarness({
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      models: { primary: 'anthropic/primary' },
      overrides: { queueMode: 'steer', budgets: recordingBudgets(reserved) },
      tools: {
        definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
        async run() {
          if (later.length === 0) {
            later.push(harness!.orchestrator.runTurn({ sessionId: 's1', input: steered }));
            // The tool result waits until the running turn knows the message.
            await arrived;
          }
          return { content: 'looked up' };
        },
      },
      script: [
        { behavior: { type: 'ok', toolCalls: [lookup] } },
        { behavior: { type: 'ok', toolCalls: [{ ...lookup, id: 'tool-2' }] } },
        { behavior: { type: 'ok', text: 'done' } },
      ],
    });
    const h = harness;
    h.orchestrator.subscribe((event) => {
      if (event.type === 'message-queued') queued();
    });
    const outcome = await h.orchestrator.runTurn({ sessionId: 's1', input: 'first' });
    const [joined] = await Promise.all(later);
    expect(outcome).toMatchObject({ kind: 'reply', steeredMessageIds: [joined?.messageId] });
    expect(h.sent()).toHaveLength(3);
    expect(JSON.stringify(h.mock.requests[1]?.messages)).toContain(steered);
    expect(reserved).toHaveLength(3);
    const [first, second, third] = reserved as [number, number, number];
    // The second reservation is taken before its request folds the message in.
    expect(second - first).toBeLessThan(steeredTokens);
    // The third request carries it: its estimate grows by at least the message's own size.
    expect(third - second).toBeGreaterThanOrEqual(steeredTokens);
  });
});
