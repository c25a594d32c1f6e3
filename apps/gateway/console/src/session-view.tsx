import type { TranscriptEntry, TurnEvent } from '@keel/spec';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { SessionSummary } from '../../src/http/session-summary';
import { buildTurnStories } from './build-turn-stories';
import { Composer } from './composer';
import { ConsoleApiError } from './console-api-error';
import { followStream, type StreamStatus } from './follow-stream';
import { useConsole, useJson, useNow, useRefresh } from './hooks';
import { hrefOf } from './route';
import { Transcript } from './transcript';

/** Events kept in the page per session (the gateway keeps its own recent ones). */
const MAX_EVENTS = 5000;

/** One session: its transcript with a timeline per turn, live, and a composer. */
export function SessionView({ sessionId }: { sessionId: string }) {
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}`;
  const [tick, poke] = useRefresh(400);
  const [events, status] = useSessionEvents(`${path}/events?follow=1`, poke);
  const summary = useJson<SessionSummary>(path, tick);
  const transcript = useJson<{ entries: TranscriptEntry[] }>(`${path}/transcript`, tick);
  const stories = useMemo(() => buildTurnStories(events), [events]);
  const running = stories.some((story) => story.endedAt === undefined);
  const now = useNow(250, running);
  const missing = ConsoleApiError.isInstance(transcript.error) && transcript.error.status === 404;

  return (
    <section class="session" data-session={sessionId} data-events={status}>
      <div class="toolbar">
        <a href={hrefOf({ view: 'sessions' })}>← Sessions</a>
        <h2>
          Session <code>{sessionId}</code>
        </h2>
        {summary.data === undefined ? null : (
          <span class="facts">
            model <code>{summary.data.selectedModel}</code> · {summary.data.entryCount} entries
            {summary.data.lastCompaction === null
              ? ''
              : ` · compacted ${summary.data.lastCompaction.tokensBefore} → ${summary.data.lastCompaction.tokensAfter} tokens`}
            {summary.data.running ? (
              <span class="running" data-running>
                running
              </span>
            ) : null}
          </span>
        )}
      </div>
      {transcript.error !== undefined && !missing ? (
        <p class="problem" role="alert">
          Could not load the transcript: {transcript.error.message}
        </p>
      ) : null}
      {missing && stories.length === 0 ? (
        <p class="muted" data-empty>
          No transcript yet: the first message below creates the session.
        </p>
      ) : null}
      <Transcript entries={transcript.data?.entries ?? []} stories={stories} now={now} />
      <Composer sessionId={sessionId} />
    </section>
  );
}

/**
 * The turn events of a session (or of a compatible call): its recent ones, then each new one,
 * over its event stream (`path`), and that stream's status. Text deltas are dropped but for the first of each attempt
 * (its first-token time).
 */
export function useSessionEvents(path: string, onChange: () => void): [TurnEvent[], StreamStatus] {
  const { client } = useConsole();
  const [events, setEvents] = useState<TurnEvent[]>([]);
  const [status, setStatus] = useState<StreamStatus>('connecting');
  useEffect(() => {
    const controller = new AbortController();
    let buffer: TurnEvent[] = [];
    let reset = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let outputSeen = new Set<string>();
    const flush = () => {
      timer = undefined;
      const batch = buffer;
      const replace = reset;
      buffer = [];
      reset = false;
      setEvents((previous) => {
        const next = replace ? batch : previous.concat(batch);
        return next.length > MAX_EVENTS ? next.slice(-MAX_EVENTS) : next;
      });
    };
    const schedule = () => {
      timer ??= setTimeout(flush, 50);
    };
    // The first open follows the view's own first loads: refreshing them then would fetch each
    // twice (two 404s for a session that does not exist yet). A reopen may have missed changes.
    let opened = false;
    void followStream(client, path, {
      signal: controller.signal,
      onStatus: setStatus,
      onOpen() {
        reset = true;
        buffer = [];
        outputSeen = new Set();
        schedule();
        if (opened) onChange();
        opened = true;
      },
      onEvent(name, data) {
        if (name !== 'turn-event') return;
        const event = data as TurnEvent;
        if (event.type === 'model-event') {
          if (event.event.type === 'usage') return;
          const key = `${event.turnId}#${event.attempt}`;
          if (event.event.type === 'text-delta') {
            if (outputSeen.has(key)) return;
          }
          outputSeen.add(key);
        }
        buffer.push(event);
        schedule();
        if (
          event.type === 'turn-start' ||
          event.type === 'turn-end' ||
          event.type === 'message-queued' ||
          event.type === 'attempt-start' ||
          (event.type === 'compaction' && event.event.type === 'compaction-end')
        )
          onChange();
      },
    });
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [client, path, onChange]);
  return [events, status];
}
