/** Producer id of the built-in LLM summarizer. */
export const BUILTIN_PRODUCER_ID = 'builtin:llm';

/** Producer id recorded when `beforeCompact` supplied the summary. */
export const HOOK_PRODUCER_ID = 'hook:beforeCompact';
