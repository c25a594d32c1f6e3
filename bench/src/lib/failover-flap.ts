/**
 * S15 of the failover scorecard: the primary answers 503 for a minute, then is healthy. Messages
 * arrive on a fixed schedule (a new session each) across the outage and 36 s past it. Pass: every
 * message answered, the primary back in use within 30 s of healing (the breakers' open time is
 * capped at 30 s by default), and at most one primary request per two messages during the outage.
 */
import { mockFaults } from '@keel/testing';
import type { FailoverScenario, Verdict } from './failover-scenario';
import { modelsOf } from './failover-single';
import { seconds } from './failover-verdict';
import type { StreamedTurn } from './gateway-turn';
import { median } from './stats';

interface Sent {
  /** Ms after the outage began. */
  at: number;
  turn?: StreamedTurn;
  failure?: string;
}

export const primaryDownThenHealthy: FailoverScenario = {
  id: 'S15',
  title: 'primary down for 60 s, then healthy',
  async run(context) {
    const models = modelsOf('S15', context.api.tag);
    const outageMs = context.smoke ? 2_000 : 60_000;
    const intervalMs = context.smoke ? 250 : 4_000;
    const afterMs = context.smoke ? 1_000 : 36_000;
    const limitMs = context.smoke ? 10_000 : 30_000;
    const gateway = await context.startGateway({
      models,
      turn: context.smoke ? { firstTokenTimeoutMs: 1_000 } : {},
    });
    try {
      const began = Date.now();
      await context.mock.enqueue({
        behavior: mockFaults.serverError(503),
        match: { model: models.primary },
        times: 1e9,
        forMs: outageMs,
      });
      const count = Math.floor((outageMs + afterMs) / intervalMs);
      const sends: Array<Promise<Sent>> = [];
      for (let index = 0; index < count; index += 1) {
        const due = began + index * intervalMs;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const at = Date.now() - began;
        sends.push(
          context.api
            .send(gateway.url, {
              key: `${models.primary}-${index}`,
              text: 'Are you there?',
              limitMs,
              models,
            })
            .then((sent) => ({ at, ...sent })),
        );
      }
      const sent = await Promise.all(sends);
      const log = await context.mock.log([models.primary, models.fallback]);
      const primary = log.filter((entry) => entry.model === models.primary);
      const duringOutage = primary.filter((entry) => entry.receivedAt - began < outageMs).length;
      const messagesDuringOutage = sent.filter((message) => message.at < outageMs).length;
      const hung = sent.filter((message) => message.turn === undefined);
      const unanswered = sent.filter(
        (message) => message.turn !== undefined && message.turn.answer.text !== context.reply,
      );
      const back = sent.find(
        (message) => message.at >= outageMs && message.turn?.answer.model === models.primaryRef,
      );
      const backAfterMs = back === undefined ? undefined : back.at - outageMs;
      const problems: string[] = [];
      if (hung.length > 0)
        problems.push(`${hung.length} message(s) without an outcome in ${seconds(limitMs)}`);
      if (unanswered.length > 0) problems.push(`${unanswered.length} message(s) not answered`);
      if (backAfterMs === undefined || backAfterMs > 30_000)
        problems.push('the primary got no traffic back within 30 s of healing');
      const hammered = duringOutage > messagesDuringOutage / 2;
      let verdict: Verdict = 'pass';
      if (problems.length > 0) verdict = 'fail';
      else if (hammered) verdict = 'partial';
      const recovery =
        backAfterMs === undefined
          ? 'never back on the primary'
          : `back on the primary ${seconds(backAfterMs)} after healing`;
      const bounded = `${duringOutage} primary requests for ${messagesDuringOutage} messages during the outage${hammered ? ' (more than one per two messages: no breaker held them)' : ''}`;
      const times = sent.flatMap((message) =>
        message.turn === undefined ? [] : [message.turn.ms],
      );
      return {
        id: 'S15',
        title: `primary down for ${seconds(outageMs)}, then healthy`,
        verdict,
        time: `median ${seconds(median(times))} per message`,
        requests: `primary ${primary.length} · fallback ${log.length - primary.length}`,
        why: [
          ...problems,
          recovery,
          bounded,
          `${sent.length} messages every ${seconds(intervalMs)}`,
        ].join('; '),
      };
    } finally {
      await gateway.close();
    }
  },
};
