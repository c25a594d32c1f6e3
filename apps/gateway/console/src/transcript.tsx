import type { ContentBlock, TranscriptEntry, TurnEntry } from '@keel/spec';
import type { TurnStory } from './build-turn-stories';
import { formatDuration, shortId, visibleText } from './format';
import { coolingNotice, costOf, triedModel, usageText } from './turn-summary';
import { TurnTimeline } from './turn-timeline';

type Item =
  | { kind: 'entry'; entry: TranscriptEntry }
  | { kind: 'turn'; turnId: string; entries: TranscriptEntry[]; story: TurnStory | undefined };

/**
 * The transcript in order, each turn's entries in one card with its timeline. Every value is
 * rendered as text: nothing from a transcript becomes markup.
 */
export function Transcript(props: {
  entries: readonly TranscriptEntry[];
  stories: readonly TurnStory[];
  now: number;
}) {
  const items = groupByTurn(props.entries, props.stories);
  return (
    <div class="transcript" data-transcript>
      {items.map((item) =>
        item.kind === 'entry' ? (
          <EntryView key={item.entry.id} entry={item.entry} />
        ) : (
          <TurnCard key={item.turnId} {...item} now={props.now} />
        ),
      )}
    </div>
  );
}

function groupByTurn(entries: readonly TranscriptEntry[], stories: readonly TurnStory[]): Item[] {
  const storyOf = new Map(stories.map((story) => [story.turnId, story]));
  const cards = new Map<string, Extract<Item, { kind: 'turn' }>>();
  const items: Item[] = [];
  for (const entry of entries) {
    const turnId = turnIdOf(entry);
    if (turnId === undefined) {
      items.push({ kind: 'entry', entry });
      continue;
    }
    let card = cards.get(turnId);
    if (card === undefined) {
      card = { kind: 'turn', turnId, entries: [], story: storyOf.get(turnId) };
      cards.set(turnId, card);
      items.push(card);
    }
    card.entries.push(entry);
  }
  for (const story of stories) {
    if (!cards.has(story.turnId))
      items.push({ kind: 'turn', turnId: story.turnId, entries: [], story });
  }
  return items;
}

function turnIdOf(entry: TranscriptEntry): string | undefined {
  switch (entry.type) {
    case 'turn':
      return entry.turnId;
    case 'message':
    case 'model-selection':
      return entry.turnId;
    default:
      return undefined;
  }
}

function TurnCard(props: {
  turnId: string;
  entries: TranscriptEntry[];
  story: TurnStory | undefined;
  now: number;
}) {
  const { story } = props;
  const ending = props.entries.find(
    (entry): entry is TurnEntry => entry.type === 'turn' && entry.phase === 'end',
  );
  const outcome =
    ending?.outcome ?? story?.outcome?.kind ?? (story === undefined ? undefined : 'running');
  const shown = props.entries.filter((entry) => entry.type !== 'turn');
  // A turn that lost its session (takeover) could not write its end: its event tells the outcome.
  const told = toldUser(ending, story);
  const model = triedModel(ending?.model ?? story?.outcome?.model, story?.outcome?.attempts);
  const cooling = coolingNotice(
    ending?.outcome ?? story?.outcome?.kind,
    ending?.retryAfterMs ?? story?.outcome?.retryAfterMs,
  );
  const usage = story?.outcome?.usage ?? ending?.usage;
  const costUsd = costOf(story?.outcome);
  return (
    <article class="turn" data-turn={props.turnId} data-outcome={outcome ?? 'unknown'}>
      <header>
        <span>
          Turn <code title={props.turnId}>{shortId(props.turnId)}</code>
        </span>
        {outcome === undefined ? null : (
          <span class={`outcome outcome-${outcome}`} data-turn-outcome={outcome}>
            {outcome}
          </span>
        )}
        {model === undefined ? null : <code data-turn-model={model}>{model}</code>}
        {story?.endedAt === undefined ? null : (
          <span class="muted">{formatDuration(story.endedAt - story.startedAt)}</span>
        )}
      </header>
      {shown.map((entry) => (
        <EntryView key={entry.id} entry={entry} />
      ))}
      {story === undefined ? (
        <p class="muted">
          No events recorded for this turn (the gateway keeps recent events since it started).
        </p>
      ) : (
        <TurnTimeline story={story} now={props.now} />
      )}
      {cooling === undefined ? null : (
        <p class="cooling" data-cooling>
          {cooling}
        </p>
      )}
      {told === undefined ? null : (
        <p class="outcome-text" data-outcome-text>
          <span class="muted">The user was told: </span>
          {told.text}
          {told.errorKind === undefined ? '' : ` (${told.errorKind})`}
        </p>
      )}
      {usage === undefined ? null : (
        <p class="usage" data-turn-usage>
          <span class="muted">Tokens: </span>
          {usageText(usage, costUsd)}
        </p>
      )}
    </article>
  );
}

/** What a turn that did not end with a reply told the user, and why. */
function toldUser(
  ending: TurnEntry | undefined,
  story: TurnStory | undefined,
): { text: string; errorKind?: string } | undefined {
  const kind = ending?.outcome ?? story?.outcome?.kind;
  const text = ending?.text ?? story?.outcome?.text;
  if (kind === undefined || kind === 'reply' || text === undefined) return undefined;
  const errorKind = ending?.errorKind ?? story?.outcome?.errorKind;
  return errorKind === undefined ? { text } : { text, errorKind };
}

function EntryView({ entry }: { entry: TranscriptEntry }) {
  switch (entry.type) {
    case 'message':
      return (
        <div class={`message message-${entry.role}`} data-entry={entry.id} data-role={entry.role}>
          <div class="who">
            {entry.role}
            {entry.model === undefined ? null : <code>{entry.model}</code>}
          </div>
          <div class="blocks">
            {entry.content.map((block, index) => (
              <BlockView key={index} block={block} />
            ))}
          </div>
        </div>
      );
    case 'compaction':
      return (
        <div class="compaction" data-entry={entry.id} data-compaction>
          <div class="who">compaction summary</div>
          <dl class="provenance">
            <dt>producer</dt>
            <dd>
              <code>{entry.provenance.producerId}</code>
            </dd>
            <dt>calls</dt>
            <dd>{entry.provenance.attempts}</dd>
            <dt>tokens</dt>
            <dd>
              {entry.provenance.tokensBefore} → {entry.provenance.tokensAfter}
            </dd>
            <dt>source</dt>
            <dd>
              <code>{entry.provenance.sourceDigest}</code>
            </dd>
            <dt>first kept entry</dt>
            <dd>
              <code>{entry.firstKeptEntryId ?? 'none'}</code>
            </dd>
          </dl>
          <details>
            <summary>Summary</summary>
            <p class="text">{visibleText(entry.summary)}</p>
          </details>
        </div>
      );
    case 'model-selection':
      return (
        <div class="selection" data-entry={entry.id} data-model-selection={entry.model}>
          model selected: <code>{entry.model}</code> ({entry.source})
        </div>
      );
    case 'turn':
      return (
        <div class="turn-entry" data-entry={entry.id}>
          turn {entry.phase} <code>{shortId(entry.turnId)}</code>
          {entry.outcome === undefined ? '' : ` · ${entry.outcome}`}
        </div>
      );
    default: {
      const unexpected: never = entry;
      return <pre>{JSON.stringify(unexpected)}</pre>;
    }
  }
}

function BlockView({ block }: { block: ContentBlock }) {
  switch (block.type) {
    case 'text':
      return <p class="text">{visibleText(block.text)}</p>;
    case 'tool_use':
      return (
        <div class="tool-call" data-tool-call={block.name}>
          <span class="muted">tool call</span> <b>{visibleText(block.name)}</b>{' '}
          <code>{visibleText(block.id)}</code>
          <pre>{visibleText(JSON.stringify(block.input, null, 2))}</pre>
        </div>
      );
    case 'tool_result':
      return (
        <div
          class={`tool-result${block.isError ? ' is-error' : ''}`}
          data-tool-result={block.toolUseId}
        >
          <span class="muted">{block.isError ? 'tool error for' : 'tool result for'}</span>{' '}
          <code>{block.toolUseId}</code>
          <pre>{visibleText(block.content)}</pre>
        </div>
      );
    default: {
      const unexpected: never = block;
      return <pre>{JSON.stringify(unexpected)}</pre>;
    }
  }
}
