// On a terminal, a person reads the log: one short line per record (time, level, message, then
// the fields as key=value) instead of pino's JSON. Written here rather than taking pino-pretty,
// whose dependencies outweigh the few lines this needs.
import { stripVTControlCharacters } from 'node:util';

export interface PrettyLogStreamOptions {
  /** Where lines go; default standard output. */
  output?: { write(text: string): unknown };
  /** ANSI colours on the level; default off. */
  color?: boolean;
}

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '36' },
  30: { name: 'INFO', color: '32' },
  40: { name: 'WARN', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '35' },
};

/** Fields every record carries that a reader at a terminal does not need on each line. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service']);

/**
 * A pino destination that turns each JSON record into one readable line:
 * `12:04:05.123 INFO  turn ended sessionId=s1 outcome=reply attempts=1`. Nested values are
 * written as compact JSON; a line that is not JSON passes through as it is.
 */
export function createPrettyLogStream(options: PrettyLogStreamOptions = {}): {
  write(line: string): void;
} {
  const output = options.output ?? process.stdout;
  const color = options.color === true;
  return {
    write(line) {
      for (const record of line.split('\n')) {
        if (record.trim() !== '') output.write(`${formatRecord(record, color)}\n`);
      }
    },
  };
}

/** One JSON record as a readable line (exported for its tests). */
export function formatRecord(record: string, color = false): string {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(record) as Record<string, unknown>;
  } catch {
    return record;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return record;
  const level = LEVELS[Number(parsed['level'])] ?? { name: String(parsed['level']), color: '0' };
  const label = level.name.padEnd(5);
  const parts = [
    clock(parsed['time']),
    color ? `\u001b[${level.color}m${label}\u001b[0m` : label,
    clean(String(parsed['msg'] ?? '')),
  ];
  for (const [key, value] of Object.entries(parsed)) {
    if (OMITTED.has(key) || value === undefined) continue;
    parts.push(`${key}=${formatValue(value)}`);
  }
  return parts.filter((part) => part !== '').join(' ');
}

function clock(time: unknown): string {
  if (typeof time !== 'number') return '';
  const date = new Date(time);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** Strings without spaces or quotes as they are, everything else as JSON. */
function formatValue(value: unknown): string {
  if (typeof value === 'string')
    return /^[^\s"=]+$/.test(value) ? clean(value) : clean(JSON.stringify(value));
  return clean(JSON.stringify(value) ?? String(value));
}

/** No escape sequence from a logged value reaches the terminal. */
function clean(text: string): string {
  return stripVTControlCharacters(text).replace(/[\u0000-\u001f\u007f]/g, ' ');
}
