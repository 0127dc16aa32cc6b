import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

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
    include: ['src/**/*.test.ts', 'web/src/**/*.test.ts', 'test/**/*.test.ts'],
    // Vitest's default is one worker per core less one: a single worker on 2 cores. Most of the
    // suite's time is spent waiting on the processes, servers and databases it starts, so two files
    // at a time finish the suite in about two thirds of the time there (853 s → 563 s).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', new SummaryReporter()],
  },
});
