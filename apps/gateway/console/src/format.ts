import type { ModelTarget } from '@keel/spec';

/** `850 ms`, `1.24 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(ms)} ms`;
  if (abs < 60_000) return `${(ms / 1000).toFixed(abs < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(abs / 60_000);
  const seconds = Math.round((abs % 60_000) / 1000);
  return `${ms < 0 ? '-' : ''}${minutes} min ${seconds} s`;
}

/** `12 s ago`, `3 min ago`, or the date for older times. */
export function formatAgo(iso: string | null | undefined, now: number): string {
  if (iso === null || iso === undefined) return '–';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(at).toLocaleDateString();
}

/** A clock time with milliseconds, e.g. `14:03:07.251`. */
export function formatClock(at: number): string {
  const date = new Date(at);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** `provider/profile · model`. */
export function formatTarget(target: ModelTarget): string {
  return `${target.providerId}/${target.profileId} · ${target.model}`;
}

export function shortId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id;
}

// Bidirectional formatting characters (they can make text read differently from what it holds)
// and control characters other than the line feed and the tab.
const INVISIBLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from a transcript or a model as the console shows it: bidirectional overrides and control
 * characters become visible code points (`⟨U+202E⟩`) instead of reordering or hiding the text.
 */
export function visibleText(text: string): string {
  return text.replace(
    INVISIBLE,
    (char) => `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}
