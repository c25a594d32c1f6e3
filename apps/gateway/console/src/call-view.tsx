import { useMemo } from 'preact/hooks';
import type { CallSummary } from '../../src/observe/call-log';
import { buildTurnStories } from './build-turn-stories';
import { ConsoleApiError } from './console-api-error';
import { useJson, useNow, useRefresh } from './hooks';
import { hrefOf } from './route';
import { useSessionEvents } from './session-view';
import { TurnTimeline } from './turn-timeline';

/**
 * One call of a compatible endpoint: its facts and the same turn timeline a session's turn has
 * (attempts, errors, decisions, waits), live while it runs. Nothing of the conversation is shown:
 * the gateway does not keep it.
 */
export function CallView({ callId }: { callId: string }) {
  const path = `/v1/calls/${encodeURIComponent(callId)}`;
  const [tick, poke] = useRefresh(400);
  const [events, status] = useSessionEvents(`${path}/events?follow=1`, poke);
  const summary = useJson<CallSummary>(path, tick);
  const stories = useMemo(() => buildTurnStories(events), [events]);
  const running = stories.some((story) => story.endedAt === undefined);
  const now = useNow(250, running);
  const call = summary.data;
  const missing = ConsoleApiError.isInstance(summary.error) && summary.error.status === 404;

  return (
    <section class="call" data-call={callId} data-events={status}>
      <div class="toolbar">
        <a href={hrefOf({ view: 'calls' })}>← Calls</a>
        <h2>
          Call <code>{callId}</code>
        </h2>
        {call === undefined ? null : (
          <span class="facts" data-call-facts>
            <span data-call-api>{call.api}</span> · route <code>{call.route}</code>
            {call.model === undefined ? '' : ' · answered by '}
            {call.model === undefined ? null : <code data-call-model>{call.model}</code>}
            {' · '}
            <span
              class={`outcome outcome-${call.outcome ?? 'running'}`}
              data-outcome={call.outcome ?? 'running'}
            >
              {call.outcome ?? 'running'}
            </span>
            {call.usage === undefined
              ? ''
              : ` · ${call.usage.inputTokens} in / ${call.usage.outputTokens} out tokens`}
            {call.costUsd === undefined ? '' : ` · $${call.costUsd.toFixed(6)}`}
          </span>
        )}
      </div>
      {missing ? (
        <p class="muted" data-empty>
          This call is not among the gateway's recent calls.
        </p>
      ) : summary.error === undefined ? null : (
        <p class="problem" role="alert">
          Could not load the call: {summary.error.message}
        </p>
      )}
      {stories.map((story) => (
        <TurnTimeline key={story.turnId} story={story} now={now} />
      ))}
    </section>
  );
}
