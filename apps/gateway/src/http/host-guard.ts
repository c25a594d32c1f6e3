import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * Whether a name or address reaches only this machine: `localhost`, `*.localhost`, an address
 * in 127.0.0.0/8, `::1` (with or without brackets) or an IPv4-mapped 127.x address. Case and one
 * trailing dot do not matter; anything a DNS server could answer for (`attacker.test`) is not.
 */
export function isLoopbackName(name: string): boolean {
  let host = name.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  const v4 = host.startsWith('::ffff:') ? host.slice('::ffff:'.length) : host;
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v4);
  return octets?.slice(1).every((octet) => Number(octet) <= 255) === true;
}

/**
 * Why the gateway may not serve on `host`, or `undefined`: without a token anyone who can reach
 * the port drives the gateway, so a tokenless gateway binds loopback addresses only.
 */
export function exposureProblem(
  host: string,
  authToken: string | undefined,
  hasKeys = false,
): string | undefined {
  if (authToken !== undefined || hasKeys || isLoopbackName(host)) return undefined;
  return `server.host ${JSON.stringify(host)} is not a loopback address, and serving other machines needs server.authToken (or KEEL_TOKEN) or client keys`;
}

/** The name part of a `Host` header value (`[::1]:7420` → `[::1]`, `localhost:80` → `localhost`). */
export function hostName(header: string): string {
  if (header.startsWith('[')) {
    const end = header.indexOf(']');
    return end === -1 ? header : header.slice(0, end + 1);
  }
  const colon = header.lastIndexOf(':');
  return colon === -1 ? header : header.slice(0, colon);
}

/**
 * DNS rebinding guard, on when the gateway runs without a token: a page on `attacker.test`
 * whose name the attacker re-points at 127.0.0.1 reaches the gateway with its own name in
 * `Host`, so any request naming a host that is not loopback is refused (`421`) on every route,
 * before routing, the console and the event streams included. A request without `Host`
 * (HTTP/1.0) comes from no browser and passes.
 */
export function registerHostGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers.host;
    if (header === undefined || isLoopbackName(hostName(header))) return;
    return refuse(
      reply,
      421,
      'misdirected_request',
      'This gateway has no authToken, so it answers only requests addressed to localhost or 127.0.0.1',
    );
  });
}

/**
 * A refusal in the gateway's error shape, closing the connection. Written here rather than with
 * `sendError`: these statuses are not API error codes, and no client SDK should parse them.
 */
export function refuse(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
): FastifyReply {
  return reply
    .code(status)
    .header('connection', 'close')
    .type('application/json')
    .send({ error: { code, message } });
}
