import { describe, expect, it } from 'vitest';
import { createPrettyLogStream, formatRecord } from './pretty-log-stream';

const at = new Date(2026, 11, 1, 9, 5, 7, 42).getTime();

describe('formatRecord', () => {
  it('writes time, level and message, then the fields as key=value', () => {
    const record = JSON.stringify({
      level: 40,
      time: at,
      pid: 1,
      hostname: 'h',
      service: 'keel-gateway',
      sessionId: 's1',
      attempts: 2,
      detail: 'Connection error. (cause: ECONNREFUSED 127.0.0.1:4010)',
      to: { model: 'm' },
      msg: 'attempt failed',
    });
    expect(formatRecord(record)).toBe(
      '09:05:07.042 WARN  attempt failed sessionId=s1 attempts=2 detail="Connection error. (cause: ECONNREFUSED 127.0.0.1:4010)" to={"model":"m"}',
    );
  });

  it('colours the level only when asked', () => {
    const record = JSON.stringify({ level: 50, time: at, msg: 'x' });
    expect(formatRecord(record, true)).toContain('\u001b[31mERROR\u001b[0m');
    expect(formatRecord(record)).not.toContain('\u001b');
  });

  it('lets no terminal escape or line break from a value through', () => {
    const record = JSON.stringify({
      level: 30,
      time: at,
      msg: 'a\nb\u001b[2J',
      url: '/x\u001b]0;t\u0007',
    });
    const line = formatRecord(record);
    expect(line).not.toMatch(/[\u0000-\u001f]/);
    expect(line).toContain('INFO  a b');
  });

  it('passes a line that is not a JSON object through unchanged', () => {
    expect(formatRecord('plain text')).toBe('plain text');
    expect(formatRecord('[1,2]')).toBe('[1,2]');
  });
});

describe('createPrettyLogStream', () => {
  it('writes one line per record, however the records arrive', () => {
    const written: string[] = [];
    const stream = createPrettyLogStream({ output: { write: (text) => written.push(text) } });
    stream.write(
      `${JSON.stringify({ level: 20, time: at, msg: 'one' })}\n${JSON.stringify({ level: 30, time: at, msg: 'two' })}\n`,
    );
    expect(written).toEqual(['09:05:07.042 DEBUG one\n', '09:05:07.042 INFO  two\n']);
  });
});
