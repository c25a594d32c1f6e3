#!/usr/bin/env node
// Run after the console build (`pnpm build`): the bundled console's source maps name preact, uPlot
// and eventsource-parser by their paths in pnpm's store (`../../../../node_modules/.pnpm/…`),
// outside the package, which a published tarball must not point at. Each such source is renamed
// to the package's own `node_modules/<name>/…` (where the dependency resolves from the gateway's
// folder); its text stays inline in `sourcesContent`, so the map is whole wherever it is installed.
// A source outside the package without inline text stops the build.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONSOLE = join(PACKAGE, 'dist', 'console');

for (const file of readdirSync(CONSOLE).filter((name) => name.endsWith('.map'))) {
  const path = join(CONSOLE, file);
  const map = JSON.parse(readFileSync(path, 'utf8'));
  const base = resolve(CONSOLE, map.sourceRoot ?? '');
  map.sources = map.sources.map((source, index) => {
    const absolute = resolve(base, source);
    if (!relative(PACKAGE, absolute).startsWith('..')) return source;
    const tail = source.split('/node_modules/').at(-1);
    if (tail === source || typeof map.sourcesContent?.[index] !== 'string') {
      throw new Error(`${file}: ${source} is outside the package and cannot be renamed`);
    }
    return relative(base, join(PACKAGE, 'node_modules', tail))
      .split(sep)
      .join(posix.sep);
  });
  writeFileSync(path, JSON.stringify(map));
}
