import { afterEach } from 'vitest';
import {
  type GatewayProcess,
  removeDir,
  type StartGatewayOptions,
  startGateway,
} from './gateway-process';
import { killProcessesIn } from './process-scan';

/** Gateway processes started for one test, and what else it must close, all cleaned up after it. */
export interface GatewayGroup {
  /** Starts a gateway (see `startGateway`) that is killed after the test, paused or not. */
  start(options: StartGatewayOptions): Promise<GatewayProcess>;
  /** `SIGSTOP`: the process freezes, timers, heartbeats and sockets included. */
  pause(gateway: GatewayProcess): void;
  /** `SIGCONT`. */
  resume(gateway: GatewayProcess): void;
  /** `kill -9`, then whatever it left running in its folder (a tool's child process). */
  kill(gateway: GatewayProcess): Promise<void>;
  /** Runs `close` after the test, before the gateways' folders are removed (a mock provider). */
  defer(close: () => unknown): void;
  /** Continues and kills every gateway, kills what runs in their folders, runs the deferred closes. */
  cleanUp(): Promise<void>;
}

/** A group cleaned up after every test of the calling file, whether it passed, failed or timed out. */
export function useGateways(): GatewayGroup {
  const group = createGatewayGroup();
  afterEach(() => group.cleanUp());
  return group;
}

export function createGatewayGroup(): GatewayGroup {
  const started: GatewayProcess[] = [];
  const dirs = new Set<string>();
  const closes: Array<() => unknown> = [];
  const kill = async (gateway: GatewayProcess) => {
    await gateway.kill();
    killProcessesIn(gateway.dir);
  };
  return {
    async start(options) {
      const gateway = await startGateway(options);
      started.push(gateway);
      dirs.add(gateway.dir);
      return gateway;
    },
    pause(gateway) {
      gateway.child.kill('SIGSTOP');
    },
    resume(gateway) {
      gateway.child.kill('SIGCONT');
    },
    kill,
    defer(close) {
      closes.push(close);
    },
    async cleanUp() {
      for (const gateway of started.splice(0)) {
        // A stopped process takes SIGKILL too; SIGCONT first so nothing stays frozen whatever happens.
        if (gateway.child.exitCode === null && gateway.child.signalCode === null) {
          gateway.child.kill('SIGCONT');
        }
        await kill(gateway);
      }
      // Every close runs, even after one fails; the first failure is reported afterwards.
      const failures: unknown[] = [];
      for (const close of closes.splice(0).reverse()) {
        await Promise.resolve()
          .then(close)
          .catch((error: unknown) => failures.push(error));
      }
      for (const dir of [...dirs]) {
        killProcessesIn(dir);
        await removeDir(dir);
      }
      dirs.clear();
      if (failures.length > 0) throw failures[0];
    },
  };
}
