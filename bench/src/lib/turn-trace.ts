import { createInterface } from 'node:readline';
import type { Service } from './service';
import { quantile } from './stats';

/**
 * Where a message's time goes across gateways, from the gateways' own turn logs (`turn started`,
 * `turn ended`, at `info`) and the client's send and answer times: the wait until the turn that
 * answers it starts (at whichever gateway), that turn, and the delivery of its answer to the
 * gateway the client asked. Also the gap between one turn of a session and the next, split by
 * whether the next ran at the same gateway. Same machine, so the processes' clocks agree.
 */
export interface TurnTrace {
  /** Reads a gateway's log lines from now on. */
  follow(service: Service, gateway: number): void;
  request(record: TracedRequest): void;
  /** Prints each variant's breakdown (median ms per phase) to stdout. */
  print(): void;
}

export interface TracedRequest {
  variant: string;
  sessionId: string;
  clientMessageId: string;
  /** What the request was in its session's round (e.g. `m1`, `retry`). */
  label: string;
  gateway: number;
  sentAt: number;
  answeredAt: number;
}

interface RunTurn {
  gateway: number;
  sessionId: string;
  clientMessageId: string | undefined;
  startedAt: number;
  endedAt: number;
}

export function createTurnTrace(): TurnTrace {
  const requests: TracedRequest[] = [];
  const started = new Map<string, Omit<RunTurn, 'endedAt'>>();
  const runs: RunTurn[] = [];

  function onLine(gateway: number, line: string) {
    if (!line.startsWith('{')) return;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const turnId = String(entry['turnId'] ?? '');
    const time = Number(entry['time']);
    if (entry['msg'] === 'turn started') {
      const clientMessageId = entry['clientMessageId'];
      started.set(turnId, {
        gateway,
        sessionId: String(entry['sessionId']),
        clientMessageId: typeof clientMessageId === 'string' ? clientMessageId : undefined,
        startedAt: time,
      });
    } else if (entry['msg'] === 'turn ended') {
      const start = started.get(turnId);
      started.delete(turnId);
      // Only turns that asked the model: a joined or stored answer starts and ends at once.
      if (start !== undefined && Number(entry['requests']) > 0)
        runs.push({ ...start, endedAt: time });
    }
  }

  function print() {
    const runOf = new Map(runs.map((run) => [`${run.sessionId} ${run.clientMessageId}`, run]));
    const median = (values: number[]) =>
      values.length === 0 ? '-' : quantile(values, 0.5).toFixed(0);
    for (const variant of [...new Set(requests.map((request) => request.variant))]) {
      const mine = requests.filter((request) => request.variant === variant);
      console.log(`\n${variant}: median ms (n) per request`);
      console.log('label   n   total  wait-for-turn  turn  deliver  ran-at-receiver');
      for (const label of [...new Set(mine.map((request) => request.label))].sort()) {
        const rows = mine.filter((request) => request.label === label);
        const wait: number[] = [];
        const turn: number[] = [];
        const deliver: number[] = [];
        let local = 0;
        for (const request of rows) {
          const run = runOf.get(`${request.sessionId} ${request.clientMessageId}`);
          if (run === undefined) continue;
          wait.push(run.startedAt - request.sentAt);
          turn.push(run.endedAt - run.startedAt);
          deliver.push(request.answeredAt - run.endedAt);
          if (run.gateway === request.gateway) local += 1;
        }
        const total = rows.map((request) => request.answeredAt - request.sentAt);
        console.log(
          [label, rows.length, median(total), median(wait), median(turn), median(deliver)]
            .map(String)
            .join('  '),
          ` ${local}/${wait.length}`,
        );
      }
      const sessions = new Set(mine.map((request) => request.sessionId));
      const same: number[] = [];
      const moved: number[] = [];
      const first: number[] = [];
      for (const sessionId of sessions) {
        const turns = runs
          .filter((run) => run.sessionId === sessionId)
          .sort((a, b) => a.startedAt - b.startedAt);
        const sent = Math.min(
          ...mine.filter((request) => request.sessionId === sessionId).map((r) => r.sentAt),
        );
        if (turns[0] !== undefined) first.push(turns[0].startedAt - sent);
        for (let index = 1; index < turns.length; index += 1) {
          const gap = turns[index]!.startedAt - turns[index - 1]!.endedAt;
          (turns[index]!.gateway === turns[index - 1]!.gateway ? same : moved).push(gap);
        }
      }
      console.log(`a session's first turn starts ${median(first)} ms after its messages were sent`);
      console.log(
        `gap between turns: same gateway ${median(same)} ms (${same.length}), another gateway ${median(moved)} ms (${moved.length})`,
      );
    }
  }

  return {
    follow(service, gateway) {
      const stdout = service.child.stdout;
      if (stdout === null) return;
      createInterface({ input: stdout }).on('line', (line) => onLine(gateway, line));
    },
    request: (record) => requests.push(record),
    print,
  };
}
