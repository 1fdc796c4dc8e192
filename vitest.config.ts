import { defineConfig } from 'vitest/config';

/**
 * Two projects: everything on the embedded SQLite store, and the server suites (HTTP, gateway,
 * reliability) again on PostgreSQL when SVC_TEST_DATABASE_URL names a database (.ci/run makes a
 * fresh one) — both backends must pass the same tests.
 */
const serverSuites = ['test/server/**/*.test.ts', 'test/gateway/**/*.test.ts', 'test/reliability/**/*.test.ts', 'test/postgres/**/*.test.ts'];

export default defineConfig({
  test: {
    exclude: ['test/bench/**', 'node_modules/**', 'dist/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // The CLI tests run the CLI in-process: clipanion's ES build imports a directory
    // (`../platform`), which Node's own loader refuses, so vite resolves it instead.
    server: { deps: { inline: ['clipanion'] } },
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          sequence: { groupOrder: 0 },
          include: ['test/**/*.test.ts', 'test/**/*.test.tsx', 'src/**/*.test.ts', 'src/**/*.test.tsx'],
          exclude: ['test/bench/**', 'node_modules/**', 'dist/**', 'test/postgres/**'],
        },
      },
      ...(process.env.SVC_TEST_DATABASE_URL
        ? [
            {
              extends: true,
              // Its tests mostly wait on the database: more of them at once than there are cores,
              // each given longer, since they share the cores with PostgreSQL.
              test: {
                name: 'postgres',
                include: serverSuites,
                env: { SVC_TEST_STORE: 'postgres' },
                maxWorkers: 4,
                testTimeout: 60_000,
                sequence: { groupOrder: 1 },
              },
            },
          ]
        : []),
    ],
  },
});
