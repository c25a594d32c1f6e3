import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file of the console, held in memory (the whole console is a few hundred kilobytes). */
export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

/** The console's files by name (`console.js`, `console.css`, …) and its HTML shell. */
export interface ConsoleAssets {
  readonly shell: ConsoleAsset;
  get(name: string): ConsoleAsset | undefined;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/**
 * The page that loads the console. It holds no data: everything the console shows comes from
 * the API, with the bearer token the operator gives it.
 */
const shellHtml = (authRequired: boolean) => `<!doctype html>
<html lang="en"${authRequired ? ' data-auth="bearer"' : ''}>
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Keel console</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="/console/console.css" />
    <script type="module" src="/console/console.js"></script>
  </head>
  <body>
    <div id="app"><noscript>The Keel console needs JavaScript.</noscript></div>
  </body>
</html>
`;

/**
 * Where the built console lives: `dist/console` beside the bundled gateway, or, when the gateway
 * runs from its sources (tests), the package's `dist/console`.
 */
export function defaultConsoleAssetsDir(): string | undefined {
  const candidates = [
    new URL('./console/', import.meta.url),
    new URL('../../dist/console/', import.meta.url),
  ];
  for (const candidate of candidates) {
    const dir = fileURLToPath(candidate);
    if (existsSync(join(dir, 'console.js'))) return dir;
  }
  return undefined;
}

/**
 * Reads the built console into memory; `undefined` when it was not built. With `authRequired`
 * the page says so (not the token), and the console asks for the token before any request.
 */
export async function loadConsoleAssets(
  dir: string | undefined,
  options: { authRequired: boolean },
): Promise<ConsoleAssets | undefined> {
  if (dir === undefined || !existsSync(join(dir, 'console.js'))) return undefined;
  const files = new Map<string, ConsoleAsset>();
  for (const name of await readdir(dir)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType === undefined) continue;
    files.set(name, asset(await readFile(join(dir, name)), contentType));
  }
  const shell = asset(Buffer.from(shellHtml(options.authRequired)), 'text/html; charset=utf-8');
  return { shell, get: (name) => files.get(name) };
}

function asset(body: Buffer, contentType: string): ConsoleAsset {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 22);
  return { body, contentType, etag: `"${digest}"` };
}
