import { describe, expect, it } from 'vitest';
import { messageEntry } from '../test/message-entry';
import { estimateMessageTokens, estimateTextTokens } from './estimate-tokens';
import { planCompaction } from './plan-compaction';
import { renderMessages } from './render-messages';
import { SUMMARY_SECTIONS } from './summary-sections';
import { validateSummary } from './validate-summary';

const JAPANESE = '日本語のテキストを要約します。';
const CHINESE = '请修复解析器中的错误并更新文档。';
const KOREAN = '파서의 버그를 고치고 문서를 업데이트하세요.';

describe('estimateTextTokens', () => {
  it('keeps about four characters per token for English and code', () => {
    expect(estimateTextTokens('a'.repeat(400))).toBe(100);
    expect(estimateTextTokens('const value = compute(input);\n'.repeat(10))).toBe(75);
    expect(estimateTextTokens('')).toBe(0);
  });

  it.each([
    ['Japanese', JAPANESE],
    ['Chinese', CHINESE],
    ['Korean', KOREAN],
  ])('counts %s at about one token per character, not one per four', (_, sentence) => {
    const text = sentence.repeat(100);
    const wide = [...text].filter((char) => char.charCodeAt(0) > 0x2e80).length;
    expect(estimateTextTokens(text)).toBeGreaterThanOrEqual(wide);
    expect(estimateTextTokens(text)).toBeLessThanOrEqual(text.length);
  });

  it('counts a character outside the BMP (CJK extension B, emoji) once, not per UTF-16 unit', () => {
    expect(estimateTextTokens('𠀋'.repeat(10))).toBe(10);
    expect(estimateTextTokens('😀'.repeat(8))).toBe(8);
  });

  it('adds the parts of mixed text', () => {
    // 6 narrow characters (1.5 tokens) and 2 wide ones (2 tokens)
    expect(estimateTextTokens('hello 世界')).toBe(4);
  });

  it('counts other non-Latin scripts at about two characters per token', () => {
    const russian = 'Исправь ошибку в парсере. '.repeat(20);
    expect(estimateTextTokens(russian)).toBeGreaterThanOrEqual(Math.floor(russian.length / 2.5));
  });
});

describe('estimates built on it', () => {
  it('a message counts the CJK text of its blocks and tool inputs', () => {
    const message = messageEntry('m1', 'assistant', [
      { type: 'text', text: CHINESE.repeat(10) },
      { type: 'tool_use', id: 'toolu_1', name: 'write', input: { text: JAPANESE.repeat(10) } },
    ]);
    expect(estimateMessageTokens(message)).toBeGreaterThanOrEqual(
      CHINESE.length * 10 + JAPANESE.length * 10 - 20,
    );
  });

  it('a Chinese conversation over the window is planned for compaction', () => {
    const entries = [
      messageEntry('m1', 'user', CHINESE.repeat(40)),
      messageEntry('m2', 'assistant', CHINESE.repeat(20)),
      messageEntry('m3', 'user', '继续。'),
    ];
    const plan = planCompaction(entries, {
      contextWindowTokens: 1000,
      reserveTokens: 200,
      keepRecentTokens: 10,
    });
    expect(plan.tokensBefore).toBeGreaterThan(900);
    expect(plan.shouldCompact).toBe(true);
  });

  it('a Japanese summary longer than the budget fails validation', () => {
    const summary = SUMMARY_SECTIONS.map((s) => `## ${s}\n- ${JAPANESE.repeat(5)}`).join('\n');
    const result = validateSummary(summary, { budgetTokens: 200 });
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.problems.map((p) => p.type)).toEqual(['over-budget']);
  });

  it('a chunk of Korean text is rendered for the summarizer within its token budget', () => {
    const rendered = renderMessages([messageEntry('m1', 'user', KOREAN.repeat(400))], 1000);
    expect(rendered).toContain('omitted');
    // about one character per token: a quarter of what four characters per token would keep
    expect(rendered.length).toBeLessThan(1400);
    expect(estimateTextTokens(rendered)).toBeLessThanOrEqual(1000);
    expect(estimateTextTokens(rendered)).toBeGreaterThan(900);
  });
});

describe('estimateMessageTokens', () => {
  it('reads an entry once: the threshold check of every turn does not scan the history again', () => {
    const entry = messageEntry('m1', 'user', 'a'.repeat(400));
    const content = entry.content;
    let reads = 0;
    Object.defineProperty(entry, 'content', {
      get() {
        reads += 1;
        return content;
      },
    });
    expect(estimateMessageTokens(entry)).toBe(100);
    expect(estimateMessageTokens(entry)).toBe(100);
    expect(reads).toBe(1);
    // A different entry with the same text is estimated on its own.
    expect(estimateMessageTokens(messageEntry('m2', 'user', 'a'.repeat(40)))).toBe(10);
  });
});
