import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/health-rules.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
});
