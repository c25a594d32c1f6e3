/**
 * The shapes of the failover scorecard (issue 18): a scenario, what one run of it observed, the
 * checks it makes and the row it prints. Kept apart so the catalogue, the runners and the
 * scoring read the same words.
 */
import type { MockScriptEntry } from '@keel/testing';
import type { RecordedAttempt, StreamedTurn } from './gateway-turn';
import type { KeelGateway } from './keel-gateway';
import type { MockLogEntry } from './mock-child';
import type { MockProcess } from './mock-process';

/** pass: the complete answer, clean conduct; partial: answered, an advisory check failed; safe:
 * a bounded clear error; fail: a hang, a truncated answer as success, or a required check failed. */
export type Verdict = 'pass' | 'partial' | 'safe' | 'fail';

/** One conduct check. A failed required check fails the scenario; a failed advisory one makes
 * an answered scenario partial. */
export interface Check {
  ok: boolean;
  required: boolean;
  /** Said in the row when it failed, e.g. "the silent primary was retried (2 requests)". */
  detail: string;
}

/** The two models of a scenario, named for it alone so no late request takes another's answer. */
export interface ScenarioModels {
  primary: string;
  fallback: string;
  /** `providerId/model` as the gateway names them. */
  primaryRef: string;
  fallbackRef: string;
}

/** Per-model settings (`models.settings["providerId/model"]`), the ones the row uses. */
export interface ModelSettings {
  contextWindowTokens?: number;
  firstTokenTimeoutMs?: number;
  stallTimeoutMs?: number;
}

export interface GatewayOptions {
  models: ScenarioModels;
  /** Written as `models.settings` (only when the gateway accepts the key). */
  settings?: Record<string, ModelSettings>;
  /** Merged into the config's `turn` section. */
  turn?: Record<string, number>;
}

/** How a scenario's messages reach the gateway: its native API, or a compatible endpoint. */
export interface FailoverApi {
  /** Names the run's table, e.g. "native API"; `tag` keeps its models apart from other runs'. */
  name: string;
  /** '' for the native run (models `s07-primary`), else e.g. `live` (`s07-live-primary`). */
  tag: string;
  /** A live compatible stream shows text as it comes: a mid-stream failure cannot be hidden. */
  midStreamVisible: boolean;
  /** One message with a limit; `probe` asks something healthy (is the gateway still alive?). */
  send(
    url: string,
    message: {
      key: string;
      text: string;
      limitMs: number;
      models: ScenarioModels;
      probe?: boolean;
    },
  ): Promise<{ turn?: StreamedTurn; failure?: string }>;
  /** The message's recorded attempts; `undefined` where the API keeps none (stateless). */
  attempts(url: string, key: string): Promise<RecordedAttempt[] | undefined>;
  /** Checks of what the client received that only this API makes (e.g. `[DONE]` after a reply). */
  clientChecks(observation: Observation): Check[];
}

/** What every scenario runs with. */
export interface FailoverContext {
  api: FailoverApi;
  mock: MockProcess;
  /** The canonical answer: every healthy completion is this text. */
  reply: string;
  smoke: boolean;
  /** Whether the built gateway accepts `models.settings`. */
  settings: boolean;
  startGateway(options: GatewayOptions): Promise<KeelGateway>;
}

/** One line of the table. */
export interface ScenarioRow {
  id: string;
  title: string;
  verdict: Verdict;
  time: string;
  requests: string;
  why: string;
}

export interface FailoverScenario {
  id: string;
  title: string;
  run(context: FailoverContext): Promise<ScenarioRow>;
}

/** What one message of a scenario observed, from the client and from the provider. */
export interface Observation {
  /** Undefined: no outcome within the scenario's limit (a hang), or the request failed. */
  turn: StreamedTurn | undefined;
  /** Why there is no turn. */
  failure?: string;
  limitMs: number;
  primary: MockLogEntry[];
  fallback: MockLogEntry[];
  /** The turn's attempts as it recorded them (`turn-end` of the session's events); `undefined`
   * through a stateless API, whose story is then told from the provider's log. */
  attempts: RecordedAttempt[] | undefined;
  /** A healthy message through the same gateway afterwards got the complete answer. */
  alive?: boolean;
  reply: string;
}

/** A scenario of one message: the faults, the config it needs, and its checks. */
export interface SingleMessageSpec {
  id: string;
  title: string;
  /** Script entries for the mock provider (match them to the scenario's models). */
  faults(models: ScenarioModels, smoke: boolean): MockScriptEntry[];
  /** `answer` (default): the complete canonical answer; `error`: a clean error is ideal. */
  ideal?: 'answer' | 'error';
  /** The user's message; default a short question. */
  text?: string;
  /** Per-model settings the scenario needs; without gateway support, `withoutSettings` applies. */
  settings?(models: ScenarioModels, smoke: boolean): Record<string, ModelSettings>;
  /** What replaces `settings` on a gateway without `models.settings` (else: "needs models.settings"). */
  withoutSettings?(smoke: boolean): { turn: Record<string, number>; note: string };
  /** Merged into `turn` of the config. */
  turn?(smoke: boolean): Record<string, number>;
  /** Longest wait for the outcome before the run counts as a hang. */
  limitMs: { full: number; smoke: number };
  /** Send a healthy message afterwards and require its complete answer. */
  aliveAfter?: boolean;
  /** The primary fails after streaming text: a live compatible stream ends in an in-band error
   * (its `safe`), and nothing more may be tried once the client's stream has failed. */
  midStream?: boolean;
  checks(observation: Observation, models: ScenarioModels): Check[];
}
