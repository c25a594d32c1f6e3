import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Bounds shutdown by `graceMs` even when clients hold half-sent requests: the server's close
 * waits for every connection, and a connection whose request never finishes arriving (headers
 * or body cut short, on purpose or not) would keep the process alive until its request timeout.
 * Once shutdown has lasted `graceMs`, every connection still receiving a request, or holding
 * none, is destroyed; a connection whose request arrived whole keeps its answer (a turn that
 * ends with the restart notice).
 */
export function closeIncompleteRequestsAfter(app: FastifyInstance, graceMs: number): void {
  const sockets = new Set<Socket>();
  const current = new Map<Socket, IncomingMessage>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      current.delete(socket);
    });
  });
  app.addHook('onRequest', async (request, reply) => {
    const { socket } = request.raw;
    current.set(socket, request.raw);
    reply.raw.once('finish', () => {
      if (current.get(socket) === request.raw) current.delete(socket);
    });
  });

  let timer: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    timer = setTimeout(() => {
      for (const socket of sockets) {
        const request = current.get(socket);
        if (request === undefined || !request.complete) socket.destroy();
      }
    }, graceMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearTimeout(timer);
  });
}
