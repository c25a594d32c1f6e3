/**
 * Runs a one-message failover scenario: queues its faults on the mock provider, starts a gateway
 * with its config, sends the message as a streaming client with a limit, reads the provider's
 * request log and the turn's record, and scores it.
 */

import type {
  FailoverContext,
  FailoverScenario,
  Observation,
  ScenarioModels,
  SingleMessageSpec,
} from './failover-scenario';
import { seconds, verdictOf } from './failover-verdict';
import { lastTurnAttempts, type StreamedTurn, streamMessage } from './gateway-turn';

/** The two models of scenario `id` (`S07` → `s07-primary`, `s07-fallback`). */
export function modelsOf(id: string): ScenarioModels {
  const name = id.toLowerCase();
  return {
    primary: `${name}-primary`,
    fallback: `${name}-fallback`,
    primaryRef: `primary/${name}-primary`,
    fallbackRef: `fallback/${name}-fallback`,
  };
}

/** One message with a limit: the streamed turn, or why there is none. */
export async function sendWithLimit(
  url: string,
  sessionId: string,
  text: string,
  limitMs: number,
): Promise<{ turn?: StreamedTurn; failure?: string }> {
  try {
    return { turn: await streamMessage(url, sessionId, text, AbortSignal.timeout(limitMs)) };
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError')
      return { failure: `no outcome within ${seconds(limitMs)} (a hang)` };
    return { failure: `the request failed: ${(error as Error).message}` };
  }
}

export function singleMessage(spec: SingleMessageSpec): FailoverScenario {
  return {
    id: spec.id,
    title: spec.title,
    async run(context: FailoverContext) {
      const models = modelsOf(spec.id);
      const notes: string[] = [];
      let turnConfig = spec.turn?.(context.smoke) ?? {};
      let settings = spec.settings?.(models, context.smoke);
      if (settings !== undefined && !context.settings) {
        const instead = spec.withoutSettings?.(context.smoke);
        settings = undefined;
        if (instead === undefined)
          notes.push('needs models.settings (not in this build; run without it)');
        else {
          turnConfig = { ...turnConfig, ...instead.turn };
          notes.push(instead.note);
        }
      }
      await context.mock.enqueue(...spec.faults(models, context.smoke));
      const gateway = await context.startGateway({
        models,
        turn: turnConfig,
        ...(settings === undefined ? {} : { settings }),
      });
      try {
        const limitMs = context.smoke ? spec.limitMs.smoke : spec.limitMs.full;
        const text = spec.text ?? 'Why does a gateway earn trust only on bad days?';
        const sent = await sendWithLimit(gateway.url, `${models.primary}-message`, text, limitMs);
        const attempts = await lastTurnAttempts(gateway.url, `${models.primary}-message`);
        // The provider's log before the probe below: its requests are not the scenario's.
        const log = await context.mock.log([models.primary, models.fallback]);
        let alive: boolean | undefined;
        if (spec.aliveAfter) {
          const probe = await sendWithLimit(
            gateway.url,
            `${models.primary}-alive`,
            'Still there?',
            limitMs,
          );
          alive =
            probe.turn?.answer.outcome === 'reply' && probe.turn.answer.text === context.reply;
        }
        const observation: Observation = {
          turn: sent.turn,
          ...(sent.failure === undefined ? {} : { failure: sent.failure }),
          limitMs,
          primary: log.filter((entry) => entry.model === models.primary),
          fallback: log.filter((entry) => entry.model === models.fallback),
          attempts,
          ...(alive === undefined ? {} : { alive }),
          reply: context.reply,
        };
        const { verdict, why } = verdictOf(
          spec.ideal ?? 'answer',
          observation,
          spec.checks(observation, models),
        );
        return {
          id: spec.id,
          title: spec.title,
          verdict,
          time: sent.turn === undefined ? `> ${seconds(limitMs)}` : seconds(sent.turn.ms),
          requests: `primary ${observation.primary.length} · fallback ${observation.fallback.length}`,
          why: [...notes, why].join('; '),
        };
      } finally {
        await gateway.close();
      }
    },
  };
}
