import { cpus, loadavg, totalmem } from 'node:os';

/** The machine a run measured, as `BENCHMARKS.md` states it. */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  load: [number, number, number];
  node: string;
  platform: string;
  date: string;
}

export function describeMachine(): Machine {
  const list = cpus();
  const [one = 0, five = 0, fifteen = 0] = loadavg();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    load: [one, five, fifteen],
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
  };
}

export function loadText(load: readonly number[]): string {
  return load.map((value) => value.toFixed(2)).join(', ');
}
