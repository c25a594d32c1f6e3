import { useEffect, useRef, useState } from 'preact/hooks';
import { formatTarget, visibleText } from './format';
import { useConsole } from './hooks';

interface LiveTurn {
  /** What happened, as plain text lines. */
  lines: string[];
  /** The streamed reply so far (voided on `discard`). */
  text: string;
  outcome?: { outcome: string; text: string; model?: string };
  problem?: string;
  running: boolean;
}

/** Sends a message to the session and shows its turn unfold from the streamed answer. */
export function Composer({ sessionId }: { sessionId: string }) {
  const { client } = useConsole();
  const [draft, setDraft] = useState('');
  const [live, setLive] = useState<LiveTurn | undefined>();
  const controller = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => controller.current?.abort(), []);

  const send = () => {
    const text = draft.trim();
    if (text === '' || live?.running === true) return;
    const abort = new AbortController();
    controller.current = abort;
    setDraft('');
    setLive({ lines: [], text: '', running: true });
    const update = (change: (turn: LiveTurn) => LiveTurn) =>
      setLive((turn) => (turn === undefined ? turn : change(turn)));
    client
      .stream(`/v1/sessions/${encodeURIComponent(sessionId)}/messages`, {
        method: 'POST',
        body: { text, clientMessageId: randomId() },
        signal: abort.signal,
        onEvent: (name, data) => update((turn) => apply(turn, name, data as StreamData)),
      })
      .then(
        () => update((turn) => ({ ...turn, running: false })),
        (error: unknown) =>
          update((turn) => ({
            ...turn,
            running: false,
            problem: abort.signal.aborted ? 'stopped watching' : (error as Error).message,
          })),
      );
  };

  return (
    <form
      class="composer card"
      data-composer
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <label for="composer-text">Send a message to this session</label>
      <textarea
        id="composer-text"
        name="text"
        rows={3}
        value={draft}
        placeholder="e.g. roll a d20"
        onInput={(event) => setDraft(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            send();
          }
        }}
      />
      <div class="actions">
        <button type="submit" disabled={draft.trim() === '' || live?.running === true}>
          Send
        </button>
        {live?.running === true ? (
          <button type="button" class="link" onClick={() => controller.current?.abort()}>
            Stop watching (the turn goes on)
          </button>
        ) : null}
      </div>
      {live === undefined ? null : <LiveView live={live} />}
    </form>
  );
}

function LiveView({ live }: { live: LiveTurn }) {
  return (
    <div class="live-turn" data-live-turn={live.running ? 'running' : 'done'}>
      <ol>
        {live.lines.map((line, index) => (
          <li key={index}>{line}</li>
        ))}
      </ol>
      {live.text === '' ? null : <p class="text live-text">{visibleText(live.text)}</p>}
      {live.outcome === undefined ? null : (
        <p>
          <span
            class={`outcome outcome-${live.outcome.outcome}`}
            data-live-outcome={live.outcome.outcome}
          >
            {live.outcome.outcome}
          </span>{' '}
          {live.outcome.outcome === 'reply' ? null : (
            <span class="text">{visibleText(live.outcome.text)}</span>
          )}
        </p>
      )}
      {live.problem === undefined ? null : <p class="problem">{live.problem}</p>}
    </div>
  );
}

interface StreamData {
  turnId?: string;
  attempt?: number;
  target?: { providerId: string; profileId: string; model: string };
  text?: string;
  name?: string;
  isError?: boolean;
  /** `tool-call`: the arguments (a string when cut). */
  input?: unknown;
  /** `tool-result`: what the tool answered. */
  content?: string;
  label?: string;
  reason?: string;
  delayMs?: number;
  outcome?: string;
  model?: string;
}

/** Folds one event of `POST /messages` (event stream) into what the composer shows. */
function apply(turn: LiveTurn, name: string, data: StreamData): LiveTurn {
  const line = (text: string) => ({ ...turn, lines: [...turn.lines, text] });
  switch (name) {
    case 'turn-start':
      return line(`turn ${data.turnId ?? ''} started`);
    case 'attempt-start':
      return line(
        `attempt #${data.attempt} → ${data.target === undefined ? '?' : formatTarget(data.target)}`,
      );
    case 'delta':
      return { ...turn, text: turn.text + (data.text ?? '') };
    case 'discard':
      return { ...line(`attempt #${data.attempt}'s text discarded (${data.reason})`), text: '' };
    case 'tool-call':
      return line(`tool call ${data.name} ${preview(data.input)}`);
    case 'tool-result':
      return line(
        `tool ${data.name} ${data.isError ? 'failed' : 'answered'}: ${preview(data.content ?? '')}`,
      );
    case 'decision':
      return line(
        `decision ${data.label} (because ${data.reason})${data.delayMs === undefined ? '' : `, wait ${data.delayMs} ms`}`,
      );
    case 'outcome':
      return {
        ...turn,
        outcome: {
          outcome: data.outcome ?? 'error',
          text: data.text ?? '',
          ...(data.model === undefined ? {} : { model: data.model }),
        },
      };
    default:
      return turn;
  }
}

/** A tool's arguments or answer on one line: control characters shown, at most 300 characters. */
function preview(value: unknown): string {
  const text = visibleText(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

/** An idempotency key for the message (works without a secure context, unlike randomUUID). */
function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}
