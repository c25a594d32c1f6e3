/**
 * Runs a one-message failover scenario: queues its faults on the mock provider, starts a gateway
 * with its config, sends the message as a streaming client with a limit, reads the provider's
 * request log and the turn's record, and scores it.
 */

import { requests } from './failover-checks';
import type {
  FailoverContext,
  FailoverScenario,
  Observation,
  ScenarioModels,
  SingleMessageSpec,
} from './failover-scenario';
import { seconds, verdictOf } from './failover-verdict';

/** The two models of scenario `id` in a run (`S07` → `s07-primary`; tag `live` → `s07-live-primary`). */
export function modelsOf(id: string, tag = ''): ScenarioModels {
  const name = tag === '' ? id.toLowerCase() : `${id.toLowerCase()}-${tag}`;
  return {
    primary: `${name}-primary`,
    fallback: `${name}-fallback`,
    primaryRef: `primary/${name}-primary`,
    fallbackRef: `fallback/${name}-fallback`,
  };
}

/**
 * A live stream that failed after its first text: the client got an in-band error, so the call
 * must stop there — no second request to the primary, none to the fallback (nobody would read it,
 * yet it would be billed) — and a healthy request afterwards is still answered.
 */
function midStreamChecks(observation: Observation) {
  return [
    requests(observation, 'primary', [1, 1], {
      required: true,
      why: "tried again after the client's stream had failed",
    }),
    requests(observation, 'fallback', [0, 0], {
      required: true,
      why: "the fallback was asked after the client's stream had failed",
    }),
    ...(observation.alive === undefined
      ? []
      : [
          {
            ok: observation.alive,
            required: true,
            detail: 'the next healthy request was not answered',
          },
        ]),
  ];
}

export function singleMessage(spec: SingleMessageSpec): FailoverScenario {
  return {
    id: spec.id,
    title: spec.title,
    async run(context: FailoverContext) {
      const { api } = context;
      const models = modelsOf(spec.id, api.tag);
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
        const key = `${models.primary}-message`;
        const sent = await api.send(gateway.url, { key, text, limitMs, models });
        const attempts = await api.attempts(gateway.url, key);
        // The provider's log before the probe below: its requests are not the scenario's.
        const log = await context.mock.log([models.primary, models.fallback]);
        let alive: boolean | undefined;
        if (spec.aliveAfter) {
          const probe = await api.send(gateway.url, {
            key: `${models.primary}-alive`,
            text: 'Still there?',
            limitMs,
            models,
            probe: true,
          });
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
        const visible = spec.midStream === true && api.midStreamVisible;
        const checks = visible ? midStreamChecks(observation) : spec.checks(observation, models);
        const { verdict, why } = verdictOf(spec.ideal ?? 'answer', observation, [
          ...checks,
          ...api.clientChecks(observation),
        ]);
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
