import { connect, createServer, type Socket } from 'node:net';

/**
 * A loopback TCP relay in front of the mock provider that counts the client connections that
 * carried a request and are still open. The mock never closes a stalled response, so such a
 * connection that closes was closed by the client: that is how a test sees an HTTP request
 * really aborted, from the outside. (Idle connections a client opens ahead of time, as undici
 * does after an abort, sent nothing and are not counted.)
 */
export interface TcpRelay {
  /** `http://127.0.0.1:<relay port>` */
  readonly url: string;
  /** Client connections that sent a request and are not closed yet. */
  openConnections(): number;
  close(): Promise<void>;
}

export async function createTcpRelay(targetPort: number): Promise<TcpRelay> {
  const open = new Set<Socket>();
  const all = new Set<Socket>();
  const server = createServer((client) => {
    all.add(client);
    client.once('data', () => {
      if (!client.destroyed) open.add(client);
    });
    const upstream = connect(targetPort, '127.0.0.1');
    const end = () => {
      open.delete(client);
      all.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('relay has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    openConnections: () => open.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of all) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
