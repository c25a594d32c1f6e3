import type { JSX } from 'preact';
import type { AttemptStory, TurnStory } from './build-turn-stories';
import { formatDuration, formatTarget } from './format';
import { StoryLog } from './story-log';

/**
 * One turn on a time axis: each attempt as a bar (provider, profile, model, duration, first
 * token), its error kind and the decision taken after it, waits, compactions, and marks for
 * health changes, binding invalidations and the rest; then the same story as text.
 */
export function TurnTimeline({ story, now }: { story: TurnStory; now: number }) {
  const start = story.startedAt;
  const end = story.endedAt ?? Math.max(now, lastTime(story));
  const span = Math.max(end - start, 1);
  const at = (time: number) => `${clamp(((time - start) / span) * 100)}%`;
  const width = (from: number, to: number) =>
    `${Math.max(clamp(((to - from) / span) * 100), 0.6)}%`;

  // Attempts, waits and compactions in the order they happened.
  const rows: Array<{ at: number; node: JSX.Element }> = [
    ...story.attempts.map((attempt) => ({
      at: attempt.startedAt,
      node: (
        <AttemptRow
          key={`attempt-${attempt.attempt}`}
          attempt={attempt}
          left={at(attempt.startedAt)}
          width={width(attempt.startedAt, attempt.endedAt ?? end)}
          end={end}
        />
      ),
    })),
    ...story.waits.map((wait, index) => ({
      at: wait.at,
      node: (
        <div class="row wait" key={`wait-${index}`} data-wait={wait.label}>
          <div class="label">
            wait {wait.retryAfter ? <span class="tag">retry-after</span> : null}
          </div>
          <div class="track">
            <div
              class="bar"
              style={{ left: at(wait.at), width: width(wait.at, wait.at + wait.delayMs) }}
            />
          </div>
          <div class="facts">
            {formatDuration(wait.delayMs)} before the next attempt ({wait.label} after {wait.reason}
            )
          </div>
        </div>
      ),
    })),
    ...story.compactions.map((compaction, index) => ({
      at: compaction.startedAt,
      node: (
        <div
          class="row compaction-row"
          key={`compaction-${index}`}
          data-compaction-run={compaction.outcome ?? 'running'}
        >
          <div class="label">compaction ({compaction.trigger})</div>
          <div class="track">
            <div
              class="bar"
              style={{
                left: at(compaction.startedAt),
                width: width(compaction.startedAt, compaction.endedAt ?? end),
              }}
            />
          </div>
          <div class="facts">
            {compaction.outcome ?? 'running'}
            {compaction.tokensBefore === undefined ? '' : ` · ${compaction.tokensBefore}`}
            {compaction.tokensAfter === undefined ? '' : ` → ${compaction.tokensAfter} tokens`}
            {compaction.producerId === undefined ? '' : ` · ${compaction.producerId}`}
          </div>
        </div>
      ),
    })),
  ].sort((a, b) => a.at - b.at);

  return (
    <div class="timeline" data-timeline={story.turnId}>
      <Axis span={span} running={story.endedAt === undefined} />
      {rows.map((row) => row.node)}
      {story.marks.length === 0 ? null : (
        <div class="row marks">
          <div class="label">events</div>
          <div class="track">
            {story.marks.map((mark, index) => (
              <span
                key={index}
                class={`mark mark-${mark.kind}`}
                style={{ left: at(mark.at) }}
                title={mark.text}
              />
            ))}
          </div>
          <div class="facts">{story.marks.length} (listed below)</div>
        </div>
      )}
      <StoryLog story={story} />
    </div>
  );
}

function AttemptRow(props: { attempt: AttemptStory; left: string; width: string; end: number }) {
  const { attempt } = props;
  const duration = (attempt.endedAt ?? props.end) - attempt.startedAt;
  const { target, error, decision } = attempt;
  return (
    <div
      class={`row attempt attempt-${attempt.outcome}`}
      data-attempt={attempt.attempt}
      data-provider={target.providerId}
      data-profile={target.profileId}
      data-model={target.model}
      data-attempt-outcome={attempt.outcome}
      {...(error === undefined ? {} : { 'data-error-kind': error.kind })}
    >
      <div class="label" title={formatTarget(target)}>
        <span class="target">
          #{attempt.attempt} <b>{target.providerId}</b>/{target.profileId}{' '}
          <span class="model">{target.model}</span>
        </span>
        {attempt.probe ? (
          <span class="tag" data-probe>
            probe
          </span>
        ) : null}
      </div>
      <div class="track">
        <div class="bar" style={{ left: props.left, width: props.width }}>
          {attempt.firstTokenMs === undefined || duration <= 0 ? null : (
            <span
              class="first-token"
              style={{ left: `${clamp((attempt.firstTokenMs / duration) * 100)}%` }}
              title={`first token after ${formatDuration(attempt.firstTokenMs)}`}
            />
          )}
        </div>
      </div>
      <div class="facts">
        {attempt.requestSent ? (
          <span>
            {attempt.outcome === 'running' ? 'running ' : ''}
            {formatDuration(duration)}
          </span>
        ) : (
          <span class="muted">
            skipped, no request sent
            {attempt.coolingMs === undefined
              ? ''
              : ` · cooling ${formatDuration(attempt.coolingMs)}`}
          </span>
        )}
        {attempt.firstTokenMs === undefined ? null : (
          <span> · first token {formatDuration(attempt.firstTokenMs)}</span>
        )}
        {attempt.usage === undefined ? null : (
          <span data-attempt-usage>
            {' '}
            · {attempt.usage.inputTokens} in / {attempt.usage.outputTokens} out
          </span>
        )}
        {attempt.discarded ? <span class="tag">text discarded</span> : null}
        {error === undefined ? null : (
          <span class="error-kind" data-error={error.kind} title={error.message ?? ''}>
            {error.kind}
            {error.status === undefined ? '' : ` ${error.status}`}
            {error.retryAfterMs === undefined
              ? ''
              : ` · retry-after ${formatDuration(error.retryAfterMs)}`}
          </span>
        )}
        {decision === undefined ? null : (
          <span
            class={`decision decision-${decision.label}`}
            data-decision={decision.label}
            {...(decision.reason === undefined ? {} : { title: `because ${decision.reason}` })}
          >
            → {decision.label}
            {decision.to === undefined ? '' : ` (${formatTarget(decision.to)})`}
          </span>
        )}
      </div>
    </div>
  );
}

function Axis({ span, running }: { span: number; running: boolean }) {
  const step = niceStep(span);
  const ticks: number[] = [];
  for (let t = 0; t <= span; t += step) ticks.push(t);
  return (
    <div class="row axis" aria-hidden="true">
      <div class="label muted">{running ? 'running…' : formatDuration(span)}</div>
      <div class="track">
        {ticks.map((t) => (
          <span key={t} class="tick" style={{ left: `${(t / span) * 100}%` }}>
            {t === 0 ? '0' : formatDuration(t)}
          </span>
        ))}
      </div>
      <div class="facts" />
    </div>
  );
}

/** 1, 2 or 5 times a power of ten, giving at most six ticks. */
function niceStep(span: number): number {
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  for (const factor of [1, 2, 5, 10]) if (factor * power >= raw) return factor * power;
  return 10 * power;
}

function lastTime(story: TurnStory): number {
  let last = story.startedAt;
  for (const attempt of story.attempts) last = Math.max(last, attempt.endedAt ?? attempt.startedAt);
  for (const wait of story.waits) last = Math.max(last, wait.at + wait.delayMs);
  for (const mark of story.marks) last = Math.max(last, mark.at);
  return last;
}

function clamp(value: number): number {
  return Math.min(100, Math.max(0, value));
}
