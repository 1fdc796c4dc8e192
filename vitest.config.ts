import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx', 'src/**/*.test.ts', 'src/**/*.test.tsx'],
    exclude: ['test/bench/**', 'node_modules/**', 'dist/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
