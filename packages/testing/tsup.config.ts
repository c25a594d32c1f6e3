import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    vitest: 'src/vitest.ts',
    'mock-provider-cli': 'src/mock-provider-cli.ts',
    'fake-claude-cli': 'src/fake-claude-cli.ts',
  },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts', vitest: 'src/vitest.ts' } },
  sourcemap: true,
  clean: true,
});
