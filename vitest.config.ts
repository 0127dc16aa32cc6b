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
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', new SummaryReporter()],
  },
});
