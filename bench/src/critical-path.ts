/**
 * Where a message's time goes on its way through the server, one message at a time: not a
 * benchmark row (`pnpm bench` does not run it) but the map behind BENCHMARKS.md's "where the time
 * goes". The Keel gateway (as `pnpm start` launches it) and the durable floor with the fixed parts
 * (`lib/fixed-parts-child.ts`: Fastify, the `openai` SDK through `@keel/transport`, two appends and
 * one fsync) each run with `probe/critical-path-probe.cjs` preloaded, which times every message
 * from Node's HTTP diagnostics channels and the `fs` calls the server makes: arrival to the
 * upstream request, the upstream call (to its last byte), and its end to the answer's last byte;
 * the `fs` calls of each part and the fsync waited for. Same conversations as
 * `durable-floor.bench.ts` (a 20-turn history in each of 64 sessions), the two servers taking
 * turns message by message. Medians.
 *
 *   node --import tsx src/critical-path.ts [messages, default 1500]
 *
 * `KEEL_BASELINE_CLI=<another build's apps/gateway/dist/cli.js>` (a git worktree at the commit
 * before, built) runs that gateway beside this one, taking turns with it: a change side by side.
 * A second table gives each server's garbage collection per message over the same messages.
 * `KEEL_COUNT_PROMISES=1` preloads `probe/count-promises.cjs` too and adds the promises each message
 * made before its upstream request and from it to the answer (an async hook slows every promise:
 * the timings of such a run are not comparable with others).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  oneMockGatewayConfig,
  PNPM_START_NODE_OPTIONS,
  postMessage,
  startKeelGateway,
} from './lib/keel-gateway';
import { startMockProcess } from './lib/mock-process';
import type { Service } from './lib/service';
import { startFloorRung } from './lib/start-durable-proxy';
import type { CriticalPathReport as Report } from './probe/critical-path-report';

const MESSAGES = Number(process.argv[2] ?? 1500);
const SESSIONS = 64;
const HISTORY = 20;
const MODEL = 'bench-model';
const countPromises = process.env['KEEL_COUNT_PROMISES'] === '1';
const probe = [
  ...(countPromises
    ? ['--require', fileURLToPath(new URL('./probe/count-promises.cjs', import.meta.url))]
    : []),
  '--require',
  fileURLToPath(new URL('./probe/critical-path-probe.cjs', import.meta.url)),
];

const mock = await startMockProcess({ reply: 'ok' });
const keel = await startKeelGateway(oneMockGatewayConfig(mock.openaiBaseUrl, MODEL), undefined, [
  ...probe,
  ...PNPM_START_NODE_OPTIONS,
]);
const fixedDir = await mkdtemp(join(tmpdir(), 'keel-critical-path-'));
const fixed = await startFloorRung('fixed-parts', mock.openaiBaseUrl, fixedDir, MODEL, probe);
const baselineCli = process.env['KEEL_BASELINE_CLI'];
const baseline =
  baselineCli === undefined
    ? undefined
    : await startKeelGateway(
        oneMockGatewayConfig(mock.openaiBaseUrl, MODEL),
        undefined,
        [...probe, ...PNPM_START_NODE_OPTIONS],
        baselineCli,
      );
const servers = [
  { name: 'Keel gateway', url: keel.url, service: keel.service },
  ...(baseline === undefined
    ? []
    : [{ name: 'Keel gateway, baseline build', url: baseline.url, service: baseline.service }]),
  { name: 'floor with the fixed parts', url: fixed.url, service: fixed.service },
];

try {
  for (const server of servers)
    for (let session = 0; session < SESSIONS; session += 1)
      for (let turn = 0; turn < HISTORY; turn += 1)
        await postMessage(server.url, `s${session}`, `history ${turn}`);
  // What the probes measured so far (the histories) is set aside.
  await Promise.all(servers.map((server) => report(server.service, 1)));
  for (let index = 0; index < MESSAGES; index += 1)
    for (const server of servers)
      await postMessage(server.url, `s${index % SESSIONS}`, `m ${index}`);
  const reports = await Promise.all(servers.map((server) => report(server.service, 2)));
  const ms = (value: number) => `${(value * 1000).toFixed(0)} µs`;
  console.log(`${MESSAGES} messages each, one at a time (medians)\n`);
  console.log(
    '| | arrival → upstream request | upstream call | its end → answer | whole | fs calls before / after the upstream call (µs) | fsync waited | fs calls after the answer |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  reports.forEach((r, index) => {
    console.log(
      `| ${servers[index]?.name} | ${ms(r.beforeUpstream)} | ${ms(r.upstream)} | ${ms(r.afterUpstream)} | ${ms(r.total)} | ${r.fs.pre.calls} (${ms(r.fs.pre.ms)}) / ${r.fs.post.calls} (${ms(r.fs.post.ms)}) | ${ms(r.fsync)} | ${r.fs.after.calls} |`,
    );
  });
  console.log(
    `\nGarbage collection per message (the same messages)${countPromises ? ', and the promises each made (medians)' : ''}\n`,
  );
  console.log(
    `| | scavenges per 1 000 messages | their pause per message | full collections per 1 000 messages | their pauses per message | promoted by scavenges per message |${countPromises ? ' promises before / after the upstream request |' : ''}`,
  );
  console.log(`| --- | --- | --- | --- | --- | --- |${countPromises ? ' --- |' : ''}`);
  reports.forEach((r, index) => {
    const { gc, promises } = r;
    console.log(
      `| ${servers[index]?.name} | ${(gc.scavenges * 1000).toFixed(0)} | ${ms(gc.scavengeMs)} | ${(gc.full * 1000).toFixed(1)} | ${ms(gc.fullMs)} | ${(gc.promotedBytes / 1024).toFixed(1)} KB |${promises === undefined ? '' : ` ${promises.pre} / ${promises.post} |`}`,
    );
  });
} finally {
  await keel.close();
  await baseline?.close();
  await fixed.service.stop();
  await mock.close();
  await rm(fixedDir, { recursive: true, force: true });
}

/** Asks the probe in `service` for its `n`th report (SIGUSR2) and reads it from its output. */
async function report(service: Service, n: number): Promise<Report> {
  const line = service.waitForLine(new RegExp(`^CRITICAL_PATH#${n} (\\{.*\\})$`));
  process.kill(service.pid, 'SIGUSR2');
  return JSON.parse((await line)[1] ?? '{}') as Report;
}
