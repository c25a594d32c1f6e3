import { fsync, writeSync } from 'node:fs';

/** Appends `line` and a newline to the open file `fd`; resolves once it is on disk (its fsync). */
export function durableAppend(fd: number, line: string): Promise<void> {
  writeSync(fd, `${line}\n`);
  return new Promise((resolve, reject) =>
    fsync(fd, (error) => (error ? reject(error) : resolve())),
  );
}
