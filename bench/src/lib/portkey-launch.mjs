/**
 * Runs Portkey's open-source gateway (`@portkey-ai/gateway`, its own `build/start-server.js`,
 * unchanged) on an ephemeral port on 127.0.0.1 only, headless, and prints the address it got.
 *
 * Two adjustments, both outside Portkey's code: `listen()` is pointed at 127.0.0.1 and port 0
 * (Portkey listens on every interface and has no host option), and once it listens, the
 * `Response` class `@hono/node-server` put in place of Node's is put back: with that lightweight
 * class, Portkey 1.15.2 fails every streamed response ("TypeError: immutable", appending its
 * headers to the upstream fetch response's). Hono serves Node's own responses as well.
 * Usage: node portkey-launch.mjs <path of start-server.js>
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';

const [entry] = process.argv.slice(2);
const NativeResponse = globalThis.Response;
const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function listenOnLoopback() {
  this.once('listening', () => {
    globalThis.Response = NativeResponse;
    const address = this.address();
    process.stdout.write(`\nPORTKEY_LISTENING http://127.0.0.1:${address.port}\n`);
  });
  return listen.call(this, { port: 0, host: '127.0.0.1' });
};
process.argv = [process.argv[0], entry, '--headless'];
await import(pathToFileURL(entry).href);
