import { describe, expect, it } from 'vitest';
import { visibleText } from './format';

describe('visibleText', () => {
  it('shows bidirectional overrides and isolates as code points instead of applying them', () => {
    const spoof = 'invoice\u202Efdp.exe and \u2066x\u2069 \u200F\u061C';
    expect(visibleText(spoof)).toBe(
      'invoice⟨U+202E⟩fdp.exe and ⟨U+2066⟩x⟨U+2069⟩ ⟨U+200F⟩⟨U+061C⟩',
    );
  });

  it('shows C0 and C1 controls (an escape sequence) but keeps line feeds and tabs', () => {
    expect(visibleText('a\u001b[31mred\u0085b\u0000')).toBe('a⟨U+001B⟩[31mred⟨U+0085⟩b⟨U+0000⟩');
    expect(visibleText('line one\n\tline two')).toBe('line one\n\tline two');
  });

  it('leaves ordinary text, other scripts and emoji as they are', () => {
    const text = 'שלום, مرحبا, こんにちは 👋 — “quotes”';
    expect(visibleText(text)).toBe(text);
  });
});
