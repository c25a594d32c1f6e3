import { createInterface } from 'node:readline';
import type { Service } from './service';
import { quantile } from './stats';

/**
 * Where a message's time goes across gateways, from the gateways' own turn logs (`turn started`,
 * `turn ended`, at `info`) and the client's send and answer times: the wait until the turn that
 * answers it starts (at whichever gateway), that turn, and the delivery of its answer to the
 * gateway the client asked. Also the gap between one turn of a session and the next, split by
 * whether the next ran at the same gateway; which message each session's turns answered, in
 * what order; and the answer times of the sessions whose first turn answered their first message
 * apart from the others (what crossing gateways costs, apart from the order the claim race gives
 * messages sent at the same instant). Same machine, so the processes' clocks agree.
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
        const turns = turnsOf(sessionId);
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
        `order of the turns (which message each session's turns answered): ${ordersOf(mine)}`,
      );
      console.log(
        `a retry answered after its first copy's turn ended, median ${median(retryDelays(mine))} ms`,
      );
      const { firstCopyFirst, otherFirst } = byFirstTurn(mine);
      console.log(
        `p50 of the answers in sessions whose first turn answered m0: ${median(firstCopyFirst)} ms (${firstCopyFirst.length}); another message: ${median(otherFirst)} ms (${otherFirst.length})`,
      );
      console.log(
        `gap between turns: same gateway ${median(same)} ms (${same.length}), another gateway ${median(moved)} ms (${moved.length})`,
      );
    }
  }

  /** The labels of a session's turns in the order they started (a retry's turn is its first copy's). */
  function labelsInOrder(mine: TracedRequest[], sessionId: string): string {
    const labelOf = new Map<string | undefined, string>();
    for (const request of mine) {
      if (request.sessionId !== sessionId) continue;
      if (request.label !== 'retry' || !labelOf.has(request.clientMessageId))
        labelOf.set(request.clientMessageId, request.label);
    }
    return turnsOf(sessionId)
      .map((run) => labelOf.get(run.clientMessageId) ?? '?')
      .join(' ');
  }

  function turnsOf(sessionId: string): RunTurn[] {
    return runs
      .filter((run) => run.sessionId === sessionId)
      .sort((a, b) => a.startedAt - b.startedAt);
  }

  /** How many sessions' turns ran in each order, most frequent first (`m0 m1 m2: 30, …`). */
  function ordersOf(mine: TracedRequest[]): string {
    const counts = new Map<string, number>();
    for (const sessionId of new Set(mine.map((request) => request.sessionId))) {
      const order = labelsInOrder(mine, sessionId);
      counts.set(order, (counts.get(order) ?? 0) + 1);
    }
    return [...counts]
      .sort((a, b) => b[1] - a[1])
      .map(([order, count]) => `${order}: ${count}`)
      .join(', ');
  }

  /**
   * The answer times (request to answer) of the sessions whose first turn answered `m0` (so also
   * its retry's), and of the sessions where another message's turn ran first.
   */
  function byFirstTurn(mine: TracedRequest[]) {
    const firstCopyFirst: number[] = [];
    const otherFirst: number[] = [];
    for (const sessionId of new Set(mine.map((request) => request.sessionId))) {
      const into = labelsInOrder(mine, sessionId).startsWith('m0') ? firstCopyFirst : otherFirst;
      for (const request of mine)
        if (request.sessionId === sessionId) into.push(request.answeredAt - request.sentAt);
    }
    return { firstCopyFirst, otherFirst };
  }

  /** Per retry: its answer's time minus the end of the turn that answered its first copy. */
  function retryDelays(mine: TracedRequest[]): number[] {
    const runOf = new Map(runs.map((run) => [`${run.sessionId} ${run.clientMessageId}`, run]));
    return mine
      .filter((request) => request.label === 'retry')
      .flatMap((request) => {
        const run = runOf.get(`${request.sessionId} ${request.clientMessageId}`);
        return run === undefined ? [] : [request.answeredAt - run.endedAt];
      });
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
