export type { ExtractiveProviderOptions } from './create-extractive-provider';
export { createExtractiveProvider } from './create-extractive-provider';
export type { ExtractedSections } from './extract-sections';
export { createSectionExtractor } from './extract-sections';
export { extractivePlugin, extractivePlugin as default } from './extractive-plugin';
export type { RenderSummaryOptions } from './render-summary';
export { parseSummary, renderSummary } from './render-summary';
