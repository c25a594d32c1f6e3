import { fsync, writeSync } from 'node:fs';

/** Appends `line` and a newline to the open file `fd`, not flushed (the next `flushFile` covers it). */
export function appendLine(fd: number, line: string): void {
  writeSync(fd, `${line}\n`);
}

/** Resolves once everything written to the open file `fd` is on disk (its fsync). */
export function flushFile(fd: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fsync(fd, (error) => (error ? reject(error) : resolve())),
  );
}
