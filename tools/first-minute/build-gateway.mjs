#!/usr/bin/env node
// `pnpm build:gateway`: builds the reference gateway and the workspace packages it runs on.
//
// After a full `pnpm install` (turbo is there) it is `turbo run build --filter=@keel/gateway...`,
// type declarations included. In `pnpm setup:gateway` (the README's first command), after an
// install of the gateway's production dependencies only — no turbo, tsup or TypeScript, whose
// downloads took most of the first minutes — it builds the same JavaScript from every package's
// own tsup configs with esbuild alone, in one process, without type declarations: those serve a
// program compiling against the packages, not a gateway serving requests. A config option this
// build does not know stops it with the option's name, so the two builds cannot drift apart.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const GATEWAY = '@keel/gateway';

const turbo = join(ROOT, 'node_modules', '.bin', 'turbo');
if (existsSync(turbo) && process.env['KEEL_BUILD_FAST'] !== '1') {
  const result = spawnSync(turbo, ['run', 'build', `--filter=${GATEWAY}...`], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}

const { build } = await import('esbuild');

/** Workspace folders by package name (`packages/*` and `apps/*`). */
function workspaceFolders() {
  const folders = new Map();
  for (const parent of ['packages', 'apps']) {
    for (const entry of readdirSync(join(ROOT, parent), { withFileTypes: true })) {
      const file = join(ROOT, parent, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      folders.set(JSON.parse(readFileSync(file, 'utf8')).name, join(ROOT, parent, entry.name));
    }
  }
  return folders;
}

/** The gateway and every workspace package it depends on at run time, transitively. */
function runtimeClosure(folders) {
  const seen = new Map();
  const visit = (name) => {
    if (seen.has(name)) return;
    const folder = folders.get(name);
    if (folder === undefined) throw new Error(`${name} is not in packages/ or apps/`);
    seen.set(name, folder);
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
      if (String(range).startsWith('workspace:')) visit(dependency);
    }
  };
  visit(GATEWAY);
  return [...seen];
}

/** A package's tsup config, read with `defineConfig` as the identity (tsup is not installed). */
async function loadConfig(file) {
  const result = await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    logLevel: 'silent',
    plugins: [
      {
        name: 'define-config',
        setup(plugin) {
          plugin.onResolve({ filter: /^tsup$/ }, () => ({ path: 'tsup', namespace: 'stub' }));
          plugin.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
            contents: 'export const defineConfig = (config) => config;',
          }));
        },
      },
    ],
  });
  const source = Buffer.from(result.outputFiles[0].text).toString('base64');
  return (await import(`data:text/javascript;base64,${source}`)).default;
}

/** The tsup options these packages use; `dts` is the one this build leaves out on purpose. */
const KNOWN = new Set([
  'entry',
  'format',
  'dts',
  'sourcemap',
  'clean',
  'outDir',
  'platform',
  'target',
  'tsconfig',
  'noExternal',
  'minify',
  'splitting',
]);

/** esbuild options with tsup's meaning: bare imports stay imports unless `noExternal` says so. */
function esbuildOptions(folder, config, file) {
  const unknown = Object.keys(config).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) throw new Error(`${file}: unknown tsup option(s) ${unknown.join(', ')}`);
  if (JSON.stringify(config.format) !== '["esm"]')
    throw new Error(`${file}: only format ['esm'] is built here`);
  const bundled = (config.noExternal ?? []).some((pattern) => String(pattern) === '/.*/');
  return {
    absWorkingDir: folder,
    entryPoints: config.entry,
    outdir: join(folder, config.outDir ?? 'dist'),
    bundle: true,
    format: 'esm',
    platform: config.platform ?? 'node',
    target: config.target ?? 'es2022',
    sourcemap: config.sourcemap === true,
    minify: config.minify === true,
    splitting: config.splitting ?? true,
    chunkNames: 'chunk-[hash]',
    ...(config.tsconfig === undefined ? {} : { tsconfig: join(folder, config.tsconfig) }),
    ...(bundled ? { nodePaths } : { packages: 'external' }),
    logLevel: 'warning',
  };
}

const started = performance.now();
// The browser console is bundled whole: its preact and uPlot resolve from this tool's
// dependencies (the same ranges as the gateway's dev ones, which a production install skips).
const nodePaths = [join(HERE, 'node_modules')];
const builds = [];
for (const [name, folder] of runtimeClosure(workspaceFolders())) {
  const configs = readdirSync(folder).filter((file) => /^tsup(\.[\w-]+)?\.config\.ts$/.test(file));
  if (configs.length === 0) throw new Error(`${name} has no tsup config`);
  const loaded = await Promise.all(configs.map((file) => loadConfig(join(folder, file))));
  for (const config of loaded) {
    if (config.clean === true)
      rmSync(join(folder, config.outDir ?? 'dist'), { recursive: true, force: true });
  }
  builds.push(
    ...loaded.map((config, index) =>
      build(esbuildOptions(folder, config, join(name, configs[index]))),
    ),
  );
  process.stdout.write(`${name}: ${configs.join(', ')}\n`);
}
await Promise.all(builds);
process.stdout.write(
  `built without type declarations in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);
