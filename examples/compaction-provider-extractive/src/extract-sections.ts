import type { MessageEntry } from '@keel/compaction';

/** What the extractive provider pulls out of a conversation, section by section. */
export interface ExtractedSections {
  goal: string[];
  constraints: string[];
  decisions: string[];
  progress: string[];
  openItems: string[];
}

const CONSTRAINT = /\b(must|never|always|do not|don't|should not|only|required?)\b/i;
const DECISION = /\b(decided?|chose|choose|will|going to|switch(ing|ed)? to|instead)\b/i;
const PROGRESS = /\b(done|fixed|raised|committed|completed|finished|added|updated|rolled back)\b/i;
const MAX_SENTENCE = 240;

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0)
    .map((sentence) =>
      sentence.length > MAX_SENTENCE ? `${sentence.slice(0, MAX_SENTENCE - 1)}…` : sentence,
    );
}

function pushUnique(list: string[], seen: Set<string>, value: string): void {
  if (seen.has(value)) return;
  seen.add(value);
  list.push(value);
}

/** Creates an empty accumulator; feed it messages in order with `addMessage`. */
export function createSectionExtractor(): {
  addMessage(message: MessageEntry): void;
  result(): ExtractedSections;
} {
  const sections: ExtractedSections = {
    goal: [],
    constraints: [],
    decisions: [],
    progress: [],
    openItems: [],
  };
  const seen = new Set<string>();
  const toolNames = new Map<string, string>();
  let lastRequest: string | undefined;
  const openErrors: string[] = [];

  return {
    addMessage(message) {
      for (const block of message.content) {
        if (block.type === 'tool_use') toolNames.set(block.id, block.name);
        if (block.type === 'tool_result') {
          const name = toolNames.get(block.toolUseId) ?? 'tool';
          const first = sentences(block.content)[0] ?? '';
          const line = `${name}: ${block.isError === true ? 'failed' : 'ok'}${first ? ` (${first})` : ''}`;
          pushUnique(sections.progress, seen, line);
          if (block.isError === true) openErrors.push(`${name} failed: ${first}`);
        }
      }
      const prose = message.content
        .flatMap((block) => (block.type === 'text' ? [block.text] : []))
        .join('\n');
      if (prose.trim().length === 0) return;
      const said = sentences(prose);
      if (message.role === 'user') {
        if (sections.goal.length === 0) sections.goal.push(said.join(' ').slice(0, 400));
        lastRequest = said.join(' ').slice(0, 400);
        for (const sentence of said)
          if (CONSTRAINT.test(sentence)) pushUnique(sections.constraints, seen, sentence);
      } else if (message.role === 'assistant') {
        for (const sentence of said) {
          if (DECISION.test(sentence)) pushUnique(sections.decisions, seen, sentence);
          else if (PROGRESS.test(sentence)) pushUnique(sections.progress, seen, sentence);
        }
      }
    },
    result() {
      const openItems = [...openErrors.slice(-3)];
      if (lastRequest !== undefined) openItems.push(`Latest request: ${lastRequest}`);
      return { ...sections, openItems };
    },
  };
}
