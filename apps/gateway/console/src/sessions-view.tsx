import { useEffect, useState } from 'preact/hooks';
import type { SessionSummary } from '../../src/http/session-summary';
import { formatAgo } from './format';
import { useHubEvents, useJson, useNow, useRefresh } from './hooks';
import { hrefOf, SESSION_ID } from './route';

/** Every session: last activity, selected model, entries, last outcome, whether a turn runs. */
export function SessionsView() {
  const [tick, poke] = useRefresh(1000);
  useHubEvents((event) => {
    if (
      event.type === 'turn-start' ||
      event.type === 'turn-end' ||
      event.type === 'message-queued' ||
      (event.type === 'compaction' && event.event.type === 'compaction-end')
    )
      poke();
  });
  const now = useNow(5000);
  const list = useJson<{ sessions: SessionSummary[] }>('/v1/sessions', tick);
  // A turn's end is announced a moment before its session is let go, so a list fetched on
  // `turn-end` may still say `running`: while any session runs, look again (once a second).
  useEffect(() => {
    if (list.data?.sessions.some((session) => session.running) === true) poke();
  }, [list.data, poke]);
  const [filter, setFilter] = useState('');
  const sessions = (list.data?.sessions ?? []).filter((session) =>
    session.sessionId.toLowerCase().includes(filter.trim().toLowerCase()),
  );

  return (
    <section class="sessions">
      <div class="toolbar">
        <h2>Sessions</h2>
        <input
          type="search"
          name="filter"
          placeholder="Filter by id"
          aria-label="Filter sessions by id"
          value={filter}
          onInput={(event) => setFilter(event.currentTarget.value)}
        />
        <OpenSession />
      </div>
      {list.error === undefined ? null : (
        <p class="problem" role="alert">
          Could not load the sessions: {list.error.message}
        </p>
      )}
      {list.data !== undefined && sessions.length === 0 ? (
        <p class="muted" data-empty>
          {filter === ''
            ? 'No sessions yet. Open one above and send it a message.'
            : 'No session matches.'}
        </p>
      ) : null}
      {sessions.length === 0 ? null : (
        <table class="grid" data-sessions>
          <thead>
            <tr>
              <th>Session</th>
              <th>Last activity</th>
              <th>Selected model</th>
              <th class="number">Entries</th>
              <th>Last outcome</th>
              <th>Turn</th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((session) => (
              <tr key={session.sessionId} data-session-id={session.sessionId}>
                <td>
                  <a href={hrefOf({ view: 'session', sessionId: session.sessionId })}>
                    {session.sessionId}
                  </a>
                </td>
                <td title={session.lastActivity ?? ''}>{formatAgo(session.lastActivity, now)}</td>
                <td>
                  <code>{session.selectedModel}</code>
                </td>
                <td class="number">{session.entryCount}</td>
                <td>
                  {session.lastOutcome === null ? (
                    '–'
                  ) : (
                    <span
                      class={`outcome outcome-${session.lastOutcome.outcome}`}
                      data-outcome={session.lastOutcome.outcome}
                      title={session.lastOutcome.model ?? ''}
                    >
                      {session.lastOutcome.outcome}
                    </span>
                  )}
                </td>
                <td>
                  {session.running ? (
                    <span class="running" data-running>
                      running
                    </span>
                  ) : (
                    <span class="muted">idle</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Opens a session by id (a new id starts an empty one: its first message creates it). */
function OpenSession() {
  const [id, setId] = useState('');
  const valid = SESSION_ID.test(id);
  return (
    <form
      class="open-session"
      onSubmit={(event) => {
        event.preventDefault();
        if (valid) location.hash = hrefOf({ view: 'session', sessionId: id });
      }}
    >
      <input
        name="session"
        placeholder="session id"
        aria-label="Session id to open"
        value={id}
        onInput={(event) => setId(event.currentTarget.value.trim())}
      />
      <button type="submit" disabled={!valid}>
        Open
      </button>
    </form>
  );
}
