/**
 * The floor with the fixed parts (`fixed-parts-child.ts`) plus the turn's core: Keel's orchestrator
 * (`@keel/orchestrator` with its defaults) over the session fence and its file store (fsync on),
 * as a library user would wire it, behind the same native route. Per message it runs the turn the
 * gateway runs (`runTurn`, `messageFlush: 'with-reply'`, as the gateway asks for a JSON answer in a
 * session no client follows): the session's queue, the fence, the transcript's cached view and the
 * model context built from it, the turn's events, failover's bookkeeping, tool pairing, compaction's
 * threshold. None of the gateway's own parts: no request hooks, event log, call log, metrics,
 * tracer, storage watch, provider health shared with the console, log lines. What the gateway
 * spends beyond this is its plumbing. Prints `TURN_CORE_LISTENING <url>`. Run by
 * `start-durable-proxy.ts`, in its own process.
 */
import { createOrchestrator } from '@keel/orchestrator';
import { createSessionFence, createTranscriptStore } from '@keel/session-fence';
import { boundHeap } from '../../../apps/gateway/src/bound-heap';
import { serveNativeRoute, upstreamTransport } from './native-route';

boundHeap();
const [upstream = '', dir = '', model = ''] = process.argv.slice(2);
const transport = upstreamTransport(upstream, model);
const storage = createTranscriptStore({ sessionsDir: dir, fsync: true });
const orchestrator = createOrchestrator({
  storage,
  fences: (sessionId) => createSessionFence({ storage, sessionId }),
  providers: [{ id: 'mock', profiles: [{ id: 'main' }] }],
  models: { primary: `mock/${model}` },
  router: { connect: () => transport },
});

await serveNativeRoute('TURN_CORE', async (sessionId, text) => {
  const outcome = await orchestrator.runTurn({
    sessionId,
    input: text,
    messageFlush: 'with-reply',
  });
  return {
    outcome: outcome.kind,
    text: outcome.text,
    model: outcome.model,
    provider: outcome.provider,
  };
});
