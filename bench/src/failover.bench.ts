/**
 * Issues 18 and 19: the failover scorecard. Sixteen fault scenarios (`lib/failover-catalogue.ts`),
 * each a gateway config with a primary and a fallback model on the loopback mock provider, run
 * through the built gateway's native API (`POST /v1/sessions/:id/messages`, streamed; target 16/16
 * pass) and through the OpenAI-compatible `POST /v1/chat/completions` streamed in `live` and
 * `buffered` mode (issue 19's targets), the three runs side by side, each scenario scored pass /
 * partial / safe / fail. A smoke run scales every silence down to seconds.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { SMOKE } from './lib/env';
import { chatCompletionsApi, NATIVE_API } from './lib/failover-apis';
import { FAILOVER_SCENARIOS } from './lib/failover-catalogue';
import type {
  FailoverApi,
  FailoverScenario,
  GatewayOptions,
  ScenarioRow,
  Verdict,
} from './lib/failover-scenario';
import {
  GATEWAY_CLI,
  type GatewayConfig,
  mockGatewayConfig,
  startKeelGateway,
} from './lib/keel-gateway';
import { startMockProcess } from './lib/mock-process';
import { publish } from './lib/result';

/** The canonical answer: every healthy completion is these sixty words. */
const REPLY =
  'A gateway is judged on the bad days. When a provider slows, cuts a stream, or refuses a ' +
  'request, the caller should still receive one complete answer, quickly, from a model that ' +
  'can give it, with an honest record of every attempt. Nobody notices the good days; trust ' +
  'comes from the failures that were handled well and told truthfully, without retrying blindly.';

const only = process.env['FAILOVER_ONLY']?.split(',');
const scenarios = FAILOVER_SCENARIOS.filter(
  (scenario) => only === undefined || only.includes(scenario.id),
);
const mock = await startMockProcess({ reply: REPLY });

function configOf(options: GatewayOptions, sessionsDir: string): GatewayConfig {
  const base = mockGatewayConfig({
    baseUrl: mock.openaiBaseUrl,
    sessionsDir,
    providers: [
      { id: 'primary', keys: ['sk-primary'] },
      { id: 'fallback', keys: ['sk-fallback'] },
    ],
    primary: options.models.primaryRef,
    fallbacks: [options.models.fallbackRef],
    extra: { turn: options.turn ?? {}, shutdown: { graceMs: 200 } },
  });
  if (options.settings === undefined) return base;
  return { ...base, models: { ...(base['models'] as object), settings: options.settings } };
}

/** Whether the built gateway accepts `models.settings` (another engineer is adding it). */
async function acceptsModelSettings(): Promise<boolean> {
  const models = {
    primary: 'probe',
    fallback: 'probe-2',
    primaryRef: 'primary/probe',
    fallbackRef: 'fallback/probe-2',
  };
  try {
    const gateway = await startKeelGateway(configOf({ models, settings: {} }, 'sessions'));
    await gateway.close();
    return true;
  } catch (error) {
    if (/settings/.test((error as Error).message)) return false;
    throw error;
  }
}

/** Which gateway was measured: its build time and the tree it was built from. */
function provenance(): string {
  const built = statSync(GATEWAY_CLI).mtime.toISOString().slice(0, 16).replace('T', ' ');
  const git = (args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  const head = git(['rev-parse', '--short', 'HEAD']);
  const changed = git(['status', '--porcelain', '--', '../apps', '../packages'])
    .split('\n')
    .filter(Boolean).length;
  return `the gateway built ${built} UTC; the tree at ${head}${changed > 0 ? ` with ${changed} uncommitted files under apps/ and packages/` : ''} when measured`;
}

const settings = await acceptsModelSettings();
console.log(`models.settings ${settings ? 'accepted' : 'not accepted'} by the built gateway`);
/**
 * One API's run: one scenario after another; a smoke run two at a time (each has its own gateway
 * and models, named for the API too, so the runs of several APIs go side by side).
 */
async function runThrough(api: FailoverApi): Promise<ScenarioRow[]> {
  const rows: ScenarioRow[] = [];
  let next = 0;
  async function worker(): Promise<void> {
    for (let index = next++; index < scenarios.length; index = next++) {
      const scenario = scenarios[index] as FailoverScenario;
      const started = performance.now();
      const row = await scenario.run({
        api,
        mock,
        reply: REPLY,
        smoke: SMOKE,
        settings,
        startGateway: (options) => startKeelGateway(configOf(options, 'sessions')),
      });
      rows[index] = row;
      const took = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`[${api.tag || 'native'}] ${row.id} ${row.verdict} in ${took} s: ${row.why}`);
    }
  }
  await Promise.all(Array.from({ length: SMOKE ? 2 : 1 }, worker));
  return rows;
}

/** `FAILOVER_API=live,buffered` runs some APIs only (`native`, `live`, `buffered`). */
const apis = process.env['FAILOVER_API']?.split(',') ?? ['native', 'live', 'buffered'];
const wanted = (name: string) => apis.includes(name);
const [rows, liveRows, bufferedRows] = await Promise.all([
  wanted('native') ? runThrough(NATIVE_API) : undefined,
  wanted('live') ? runThrough(chatCompletionsApi('live')) : undefined,
  wanted('buffered') ? runThrough(chatCompletionsApi('buffered')) : undefined,
]);
await mock.close();

const countIn = (list: readonly ScenarioRow[], verdict: Verdict) =>
  list.filter((row) => row.verdict === verdict).length;
const tally = (list: readonly ScenarioRow[]) =>
  `${countIn(list, 'pass')}/${list.length} pass (${countIn(list, 'partial')} partial, ${countIn(list, 'safe')} safe, ${countIn(list, 'fail')} fail)`;
const tableOf = (list: readonly ScenarioRow[]) => ({
  columns: ['scenario', 'score', 'time to answer', 'requests per model', 'why'],
  rows: list.map((row) => [
    `${row.id} ${row.title}`,
    `**${row.verdict}**`,
    row.time,
    row.requests,
    row.why.replaceAll('|', '\\|'),
  ]),
});
if (rows !== undefined) await publishNative(rows);
if (liveRows !== undefined || bufferedRows !== undefined)
  await publishCompat(liveRows ?? [], bufferedRows ?? []);

async function publishNative(rows: ScenarioRow[]): Promise<void> {
  const count = (verdict: Verdict) => countIn(rows, verdict);
  const passed = count('pass');
  await publish({
    order: 18,
    title: 'Issue 18: failover scorecard',
    method: `Measured: ${provenance()}. ${rows.length} fault scenarios, written from issue 18's list (ids follow the public failoverbench catalogue). Each starts the built gateway (\`apps/gateway/dist/cli.js\`, file store, default retry and health settings, two providers on the loopback mock provider: \`primary/sNN-primary\` with \`fallback/sNN-fallback\` as its fallback) and sends one message to a new session through the native API (\`POST /v1/sessions/:id/messages\`, \`Accept: text/event-stream\`), reading the stream to its \`outcome\`; the mock provider (its own process) plays the fault on the primary and counts every request per model; the turn's attempts and decisions are read back from \`GET /v1/sessions/:id/events\`. Every healthy completion is the same sixty-word answer, so completeness is an exact comparison. S15 sends a message every 4 s across a 60 s outage and 36 s past it. The gateway's silence timeouts are its defaults (30 s first token, 30 s stall), except S07, whose primary gets a 5 s first-token timeout${settings ? ' in `models.settings`' : ' (`turn.firstTokenTimeoutMs`: this build has no `models.settings`)'} so a 20 s first token falls over in reasonable time.`,
    baseline:
      'the scorecard itself: pass = the complete answer and clean conduct (exact request counts per model: no same-model retry of a silent route, no hammering, no blind retry of a 400); partial = answered, but an advisory check failed; safe = a bounded, clear error; fail = a hang, a truncated answer presented as success, or a failed required check.',
    tables: [{ table: tableOf(rows) }],
    targets: [
      {
        name: 'failover scenarios passed',
        goal: `${scenarios.length}/${scenarios.length} pass`,
        measured: tally(rows),
        met: passed === scenarios.length,
        why: 'the wave-3 conduct (silent routes not retried, larger-window fall-over, breakers healing within 30 s, usage and truthful decisions on every outcome) is being built; the table says which scenario misses and why',
      },
    ],
    notes: [
      'Required checks (a failure fails the scenario): the complete answer or a clear error, no truncated answer presented as success, what the stream left the client showing equal to the answer, no hammering (request counts per model within their bound), no blind retry of a 400 (content filter, context overflow), no prefill, truthful decisions and the answering model named (S16), the gateway alive afterwards (S09, S10). Advisory checks (a failure makes an answered scenario partial): a silent route (hang, slow first token, stall) not retried on the same model, a transient 500 retried in place, a complete answer without `[DONE]` kept, usage on the outcome (S11, S16). S13 (content filter): a clean `content_policy` error after exactly one request is the pass; an answer from the fallback is partial.',
      "S06 and S09 wait out the gateway's default 30 s silence timeouts once each (then fall over at once, with no second request to the silent primary), as the public catalogue's budgets assume (S09 within 45 s); `models.settings` (`firstTokenTimeoutMs`, `stallTimeoutMs`) sets them per model. S09's scenario takes twice its answer time because the healthy message sent afterwards (is the gateway still alive?) meets the stalled primary again.",
      '`FAILOVER_ONLY=S07,S12 pnpm bench failover` runs some scenarios only; `pnpm bench:smoke` runs all of them with every silence scaled down to a second, two at a time (no target is checked).',
    ],
  });
}

async function publishCompat(live: ScenarioRow[], buffered: ScenarioRow[]): Promise<void> {
  const midStream = new Set(['S08', 'S09', 'S10', 'S14']);
  const liveFails = countIn(live, 'fail');
  const liveOthers = live.filter((row) => !midStream.has(row.id));
  const liveOthersPassed = liveOthers.filter((row) => row.verdict === 'pass').length;
  const liveMidSafe = live.filter((row) => midStream.has(row.id) && row.verdict === 'safe').length;
  const bufferedPassed = countIn(buffered, 'pass');
  const missed = (list: readonly ScenarioRow[], wanted: (row: ScenarioRow) => boolean) =>
    list
      .filter((row) => !wanted(row))
      .map((row) => `${row.id} ${row.verdict}`)
      .join(', ') || 'none';
  await publish({
    order: 19.1,
    title: 'Issue 19: failover scorecard through /v1/chat/completions',
    method: `Measured: ${provenance()}, in the same run as the issue 18 row, the three runs side by side (each scenario has its own gateway and its own models per run: \`primary/sNN-live-primary\`, \`fallback/sNN-live-fallback\`…). The same ${scenarios.length} scenarios, configs and mock faults as the native row, but the message is one OpenAI Chat Completions request — \`POST /v1/chat/completions\` with \`model: "default"\` (the scenario's own route: its primary, then its fallback), \`stream: true\`, \`stream_options.include_usage\` — once with \`x-keel-stream-mode: live\` and once with \`x-keel-stream-mode: buffered\`, read with \`fetch\` to the end of its \`data:\` lines (\`lib/chat-stream.ts\`). Scored as the native stream: a complete answer is exactly the healthy sixty words; a truncated answer (with \`[DONE]\` or without) is a fail; an error status before the first byte, or an in-band \`data: {"error":…}\` without \`[DONE]\`, is a clean error. The endpoint is stateless, so no attempts or decisions can be read back: conduct is judged from the mock provider's log (requests per model, and the behaviour that answered each, which the "why" column lists in order), and S16's truthful-decisions check has nothing to check here (the model named in the chunks still must be the fallback).`,
    baseline:
      "the scorecard's own rules, as in the issue 18 row; and for every scenario three checks of what a Chat Completions client receives: a reply ends with `[DONE]`, an in-band error never does, every chunk names the one model that answered. `live` cannot hide a failure after text was sent: for the scenarios whose primary fails mid-answer (S08 cut, S09 stall, S10 malformed chunk, and S14, whose primary is cut too) a clean in-band error without `[DONE]` is their `safe`, and the call must stop there (exactly one primary request, none to the fallback), and a healthy request afterwards (S09, S10: to the fallback by name) must still be answered.",
    tables: [
      { caption: '`x-keel-stream-mode: live`', table: tableOf(live) },
      { caption: '`x-keel-stream-mode: buffered`', table: tableOf(buffered) },
    ],
    targets: [
      {
        name: 'live: no fail, every scenario but the mid-stream ones passes',
        goal: `0 fail; ${liveOthers.length}/${liveOthers.length} pass, S08 S09 S10 S14 safe`,
        measured: `${tally(live)}; ${liveOthersPassed}/${liveOthers.length} pass, ${liveMidSafe}/${live.length - liveOthers.length} mid-stream safe`,
        met:
          live.length > 0 &&
          liveFails === 0 &&
          liveOthersPassed === liveOthers.length &&
          liveMidSafe === live.length - liveOthers.length,
        why: `not as wanted: ${missed(live, (row) => (midStream.has(row.id) ? row.verdict === 'safe' : row.verdict === 'pass'))}`,
      },
      {
        name: 'buffered: every scenario passes',
        goal: `${scenarios.length}/${scenarios.length} pass`,
        measured: tally(buffered),
        met: buffered.length > 0 && bufferedPassed === scenarios.length,
        why: `not passed: ${missed(buffered, (row) => row.verdict === 'pass')}`,
      },
    ],
    notes: [
      "Issue 19 names three mid-stream scenarios (cut, stall, malformed chunk); S14's primary is also cut mid-answer (its point is the fallback's prefill rejection, which a live stream never reaches), so a live stream cannot pass it either: the target above counts four, and says so.",
      '`FAILOVER_API=live,buffered pnpm bench failover` runs the compatible runs only (`native` is the issue 18 row); `FAILOVER_ONLY` picks scenarios as there.',
    ],
  });
}
