import type { Usage } from '@keel/spec';

/** What one built-in summarizer model call reported it used, with the session it compacts. */
export interface CompactionUsage {
  sessionId: string;
  usage: Usage;
}
