import type { TurnStory } from './build-turn-stories';
import { formatDuration } from './format';
import { storyLines } from './story-lines';

/** The turn's story as text, in the order it happened, each line at its offset from the start. */
export function StoryLog({ story }: { story: TurnStory }) {
  const lines = storyLines(story.events);
  return (
    <details class="story-log" open={story.endedAt === undefined || lines.length <= 12}>
      <summary>The turn's story ({lines.length} events)</summary>
      <ol>
        {lines.map((line, index) => (
          <li
            key={index}
            class={`line line-${line.kind}`}
            {...(line.decision === undefined ? {} : { 'data-log-decision': line.decision })}
          >
            <span class="offset">+{formatDuration(line.at - story.startedAt)}</span> {line.text}
          </li>
        ))}
      </ol>
    </details>
  );
}
