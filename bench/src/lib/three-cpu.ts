/**
 * The CPU of the three processes that share the cores while a benchmark drives a server: this
 * process (the client), the mock provider and the server (its main thread and its other threads),
 * so far or per message of a block.
 */
import { ownCpuMs, processCpuMs, type ThreadCpu, threadCpuMs } from './process-cpu';

/** CPU (ms) by process: so far, or per message of a block. */
export interface ThreeCpu {
  client: number;
  provider: number;
  server: ThreadCpu | undefined;
}

/** CPU so far (ms) of this process (the client), the provider `providerPid` and the server `serverPid`, if any. */
export async function threeCpuMs(
  providerPid: number,
  serverPid: number | undefined,
): Promise<ThreeCpu> {
  return {
    client: ownCpuMs(),
    provider: await processCpuMs(providerPid),
    server: serverPid === undefined ? undefined : await threadCpuMs(serverPid),
  };
}

/** What each process spent between two `threeCpuMs`, per message of a block of `messages`. */
export function threeCpuPerMessage(before: ThreeCpu, after: ThreeCpu, messages: number): ThreeCpu {
  const per = (ms: number) => ms / messages;
  return {
    client: per(after.client - before.client),
    provider: per(after.provider - before.provider),
    server:
      before.server === undefined || after.server === undefined
        ? undefined
        : {
            main: per(after.server.main - before.server.main),
            other: per(after.server.other - before.server.other),
          },
  };
}

/** All three's CPU (ms). */
export function allThree(cpu: ThreeCpu): number {
  return (
    cpu.client + cpu.provider + (cpu.server === undefined ? 0 : cpu.server.main + cpu.server.other)
  );
}
