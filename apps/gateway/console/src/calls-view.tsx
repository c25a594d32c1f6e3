import type { CallSummary } from '../../src/observe/call-log';
import { formatAgo } from './format';
import { useHubEvents, useJson, useNow, useRefresh } from './hooks';
import { hrefOf } from './route';

/**
 * The recent calls of the OpenAI- and Anthropic-compatible endpoints: stateless turns with no
 * session, listed with their wire, route, outcome, the model that answered, usage and decisions.
 */
export function CallsView() {
  const [tick, poke] = useRefresh(1000);
  useHubEvents((event) => {
    if (event.type === 'turn-start' || event.type === 'turn-end') poke();
  });
  const now = useNow(5000);
  const list = useJson<{ calls: CallSummary[] }>('/v1/calls', tick);
  const calls = list.data?.calls ?? [];

  return (
    <section class="calls">
      <div class="toolbar">
        <h2>Calls</h2>
        <span class="facts">
          <code>/v1/chat/completions</code> and <code>/v1/messages</code>, the most recent first
        </span>
      </div>
      {list.error === undefined ? null : (
        <p class="problem" role="alert">
          Could not load the calls: {list.error.message}
        </p>
      )}
      {list.data !== undefined && calls.length === 0 ? (
        <p class="muted" data-empty>
          No calls yet. Point an OpenAI or Anthropic client at this gateway.
        </p>
      ) : null}
      {calls.length === 0 ? null : (
        <table class="grid" data-calls>
          <thead>
            <tr>
              <th>Call</th>
              <th>Started</th>
              <th>API</th>
              <th>Route</th>
              <th>Answered by</th>
              <th>Outcome</th>
              <th class="number">Tokens in / out</th>
              <th class="number">Cost</th>
              <th>Decisions</th>
            </tr>
          </thead>
          <tbody>
            {calls.map((call) => (
              <CallRow key={call.callId} call={call} now={now} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function CallRow({ call, now }: { call: CallSummary; now: number }) {
  const started = new Date(call.startedAt).toISOString();
  return (
    <tr data-call-id={call.callId} data-api={call.api}>
      <td>
        <a href={hrefOf({ view: 'call', callId: call.callId })}>{call.callId}</a>
      </td>
      <td title={started}>{formatAgo(started, now)}</td>
      <td data-call-api>{call.api}</td>
      <td>
        <code data-call-route>{call.route}</code>
      </td>
      <td>{call.model === undefined ? '–' : <code data-call-model>{call.model}</code>}</td>
      <td>
        <span
          class={`outcome outcome-${call.outcome ?? 'running'}`}
          data-outcome={call.outcome ?? 'running'}
          title={call.errorKind ?? ''}
        >
          {call.outcome ?? 'running'}
          {call.errorKind === undefined ? '' : ` (${call.errorKind})`}
        </span>
      </td>
      <td class="number" data-call-usage>
        {call.usage === undefined ? '–' : `${call.usage.inputTokens} / ${call.usage.outputTokens}`}
      </td>
      <td class="number">{call.costUsd === undefined ? '–' : `$${call.costUsd.toFixed(6)}`}</td>
      <td data-call-decisions>
        {call.decisions.length === 0 ? (
          <span class="muted">none</span>
        ) : (
          call.decisions.map((label, index) => (
            <span key={index} class={`decision decision-${label}`} data-decision={label}>
              {index === 0 ? '' : ' → '}
              {label}
            </span>
          ))
        )}
      </td>
    </tr>
  );
}
