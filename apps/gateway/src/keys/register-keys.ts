// What client keys change in the HTTP API: a key that is not an admin reaches only the client
// routes (sessions, the compatible endpoints, its own usage); a session belongs to the key that
// created it (others get `404`); a model request over the key's limits is refused in the route's
// wire (`429` with `Retry-After`, or `403 budget_exceeded`); and each key's usage is counted from
// the turns' and calls' ends.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayRuntime } from '../compose/create-runtime';
import { sendError } from '../http/api-error';
import { clientOf, mayName, rememberTicket } from './client-of';
import type { ClientIdentity, KeyAdmission, Keyring } from './create-keyring';

/** Routes a key that is not an admin may use (besides its sessions' routes). */
const CLIENT_ROUTES = new Set([
  '/healthz',
  '/v1/sessions',
  '/v1/chat/completions',
  '/v1/models',
  '/v1/messages',
  '/v1/messages/count_tokens',
  '/v1/keys',
  '/v1/keys/:keyId/usage',
]);
const SESSION_ROUTE = '/v1/sessions/:sessionId';
/** Routes that send model requests: each one counts against the key's limits. */
const MODEL_REQUESTS = new Set([
  'POST /v1/sessions/:sessionId/messages',
  'POST /v1/chat/completions',
  'POST /v1/messages',
]);
const READS = new Set(['GET', 'HEAD']);
/** `Retry-After` of a request whose key's limits could not be checked. */
const UNAVAILABLE_RETRY_SECONDS = 5;

export function registerKeys(
  app: FastifyInstance,
  runtime: GatewayRuntime,
  keyring: Keyring,
): void {
  const keyOf = (sessionId: string) =>
    runtime.calls.get(sessionId)?.key ?? keyring.owners.ownerOf(sessionId);
  // Each admitted request's reservation is kept beside the request and names what it runs: a
  // session's message its session, a compatible call its call id (given when the call starts), so
  // the end of that session's turn or of that call corrects it.
  const unsubscribe = runtime.events.follow(undefined, (event) =>
    keyring.observe(event, keyOf(event.sessionId)),
  );
  // A compaction's model calls are charged to the key of the session compacted.
  const unsubscribeCompactions = runtime.compactionUsage.subscribe(
    ({ sessionId, model, usage }) => {
      void keyring.owners.find(sessionId).then(
        (keyId) => {
          if (keyId !== undefined) keyring.chargeCompaction(keyId, model, usage);
        },
        () => undefined,
      );
    },
  );
  app.addHook('onClose', async () => {
    unsubscribe();
    unsubscribeCompactions();
    await keyring.close();
  });

  app.addHook('preHandler', async (request, reply) => {
    const identity = clientOf(request);
    const url = request.routeOptions.url;
    if (identity === undefined || url === undefined) return;
    const isSessionRoute = url === SESSION_ROUTE || url.startsWith(`${SESSION_ROUTE}/`);
    if (!identity.admin) {
      if (!isSessionRoute && !CLIENT_ROUTES.has(url)) {
        return sendError(reply, 'forbidden', 'This key may not use this route');
      }
      if ((isSessionRoute || url === '/v1/sessions') && !mayName(request, 'default')) {
        return sendError(
          reply,
          'forbidden',
          'This key may not use the session API (it needs the "default" route)',
        );
      }
    }
    if (isSessionRoute) {
      const refused = await checkOwner(request, reply, identity);
      if (refused !== undefined) return refused;
      const model = (request.body as { model?: unknown } | undefined)?.model;
      if (url.endsWith('/model') && typeof model === 'string' && !mayName(request, model)) {
        return sendError(reply, 'forbidden', 'This key may not use that model');
      }
    }
    if (identity.keyId !== undefined && MODEL_REQUESTS.has(`${request.method} ${url}`)) {
      let admission: KeyAdmission;
      try {
        admission = await keyring.admit(identity.keyId, estimateTokens(request.body));
      } catch (error) {
        // The ledger or the spend rows could not answer (a database down or frozen): nothing was
        // sent; the client may try again shortly.
        request.log.error(
          { key: identity.keyId, err: { type: (error as Error).name, code: codeOf(error) } },
          "the key's limits could not be checked",
        );
        reply.header('retry-after', String(UNAVAILABLE_RETRY_SECONDS));
        return sendError(
          reply,
          'unavailable',
          "The key's limits could not be checked (their storage is unavailable); please try again shortly.",
        );
      }
      if (admission.admitted && admission.ticket !== undefined) {
        if (isSessionRoute) {
          admission.ticket.sessionId = (request.params as { sessionId: string }).sessionId;
        }
        rememberTicket(request, admission.ticket);
      }
      if (!admission.admitted) {
        if (admission.retryAfterMs !== undefined) {
          reply.header(
            'retry-after',
            String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000))),
          );
        }
        return sendError(
          reply,
          admission.reason === 'budget' ? 'budget_exceeded' : 'rate_limited',
          admission.message,
        );
      }
    }
  });

  /** A key's session is its own: others get `404`; a key's first write to a new id claims it. */
  const checkOwner = async (
    request: FastifyRequest,
    reply: FastifyReply,
    identity: ClientIdentity,
  ): Promise<FastifyReply | undefined> => {
    const { sessionId } = request.params as { sessionId: string };
    const notFound = () => sendError(reply, 'not_found', `No session ${sessionId}`);
    const owner = await keyring.owners.find(sessionId);
    if (owner !== undefined) {
      return identity.admin || owner === identity.keyId ? undefined : notFound();
    }
    if (identity.keyId === undefined || READS.has(request.method)) {
      return identity.admin ? undefined : notFound();
    }
    // A session nobody owns that exists already is the admin's (or older than the keys).
    if ((await runtime.storage.state(sessionId)).exists) {
      return identity.admin ? undefined : notFound();
    }
    const owns = await keyring.owners.claim(sessionId, identity.keyId);
    return owns || identity.admin ? undefined : notFound();
  };

  app.get('/v1/keys', async (request) => {
    const identity = clientOf(request);
    const ids =
      identity === undefined || identity.admin
        ? keyring.keyIds
        : keyring.keyIds.filter((id) => id === identity.keyId);
    return { keys: await Promise.all(ids.map((id) => keyring.usage(id))) };
  });

  app.get<{ Params: { keyId: string } }>(
    '/v1/keys/:keyId/usage',
    {
      schema: {
        params: {
          type: 'object',
          required: ['keyId'],
          properties: { keyId: { type: 'string', maxLength: 64 } },
        },
      },
    },
    async (request, reply) => {
      const identity = clientOf(request);
      const { keyId } = request.params;
      const own = identity === undefined || identity.admin || identity.keyId === keyId;
      const usage = own ? await keyring.usage(keyId) : undefined;
      return usage ?? sendError(reply, 'not_found', `No key ${keyId.slice(0, 64)}`);
    },
  );
}

/**
 * The tokens a model request may use, reserved under the key's `tpm` before it runs: its body's
 * size (about 4 bytes a token) and the output it allows (`max_tokens`, `max_completion_tokens`).
 */
export function estimateTokens(body: unknown): number {
  if (typeof body !== 'object' || body === null) return 0;
  const { max_tokens: maxTokens, max_completion_tokens: maxCompletionTokens } = body as {
    max_tokens?: unknown;
    max_completion_tokens?: unknown;
  };
  const output = [maxCompletionTokens, maxTokens].find(
    (value): value is number => typeof value === 'number' && value > 0,
  );
  return Math.ceil(JSON.stringify(body).length / 4) + (output ?? 0);
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
