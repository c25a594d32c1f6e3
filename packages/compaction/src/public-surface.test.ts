import { describe, expect, it } from 'vitest';
import * as compaction from './index';

describe('the public surface', () => {
  it('exports what a user composes, and no helper', () => {
    expect(Object.keys(compaction).sort()).toEqual([
      'BUILTIN_PRODUCER_ID',
      'CompactionError',
      'HOOK_PRODUCER_ID',
      'SUMMARY_SECTIONS',
      'createCompactionRegistry',
      'createCompactor',
      'estimateContextTokens',
      'estimateMessageTokens',
      'estimateTextTokens',
      'planCompaction',
      'selectContext',
      'shouldCompact',
      'validateSummary',
    ]);
  });
});
