import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The sandbox's tests: beside the sources, but in the project `integration` (see below). */
const SANDBOX_TESTS = 'src/sandbox/**/*.test.ts';

export default defineConfig({
  // Documentation examples import the package by name; tests run them against the sources.
  resolve: {
    alias: [
      { find: /^toolshed$/, replacement: source('./src/index.ts') },
      {
        find: /^toolshed\/(mcp|config|builtins|extract|store|server|sandbox|emails)$/,
        replacement: source('./src/$1/index.ts'),
      },
      { find: /^toolshed\/(langchain|ai-sdk)$/, replacement: source('./src/integrations/$1/index.ts') },
    ],
  },
  test: {
    // Vitest's default is one worker per core less one: a single worker on 2 cores, 853 s. One worker
    // a core: 507 s (with the unit files below sharing their modules). A third worker gave 470-477 s on
    // a quiet host, but on a loaded one (the bench's floor at 158 ns instead of 96) its sandbox tests
    // were starved past their time limits: JavaScript runs meant to reach the memory limit timed out
    // at 1.5 s, a Python escape attempt took 11.6 s against a 10 s bound. Those tests time real runs,
    // so the suite keeps one worker a core.
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', new SummaryReporter()],
    projects: [
      // The tests beside the sources stop what they start and leave no global state behind (they
      // pass in any order of the files: --sequence.shuffle.files), so each worker loads the sources
      // once for all of them instead of once a file: 104 s → 82 s for these files alone. The
      // sandbox's tests, which start its processes by the dozen, keep a process a file.
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'web/src/**/*.test.ts'],
          exclude: [SANDBOX_TESTS],
          isolate: false,
        },
      },
      // A file of its own process each: tests that start servers, CLI processes, databases and
      // sandboxes, and may change the process's environment. Vitest runs this project's files first
      // (its name sorts first), so the unit files fill the workers at the end.
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts', SANDBOX_TESTS] } },
    ],
  },
});
