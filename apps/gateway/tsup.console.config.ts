import { defineConfig } from 'tsup';

/** The browser console: one script and one stylesheet in `dist/console`, every import bundled. */
export default defineConfig({
  entry: { console: 'console/src/main.tsx' },
  outDir: 'dist/console',
  format: ['esm'],
  platform: 'browser',
  target: 'es2022',
  tsconfig: 'console/tsconfig.json',
  noExternal: [/.*/],
  minify: true,
  sourcemap: true,
  splitting: false,
  clean: false,
  dts: false,
});
