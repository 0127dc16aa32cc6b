import { describe } from 'vitest';
import { defineServerCases } from './server.cases.js';
import { postgresHarness, sqliteHarness } from './server-harness.js';

for (const harness of [sqliteHarness(), postgresHarness()]) {
  describe(`REST API on ${harness.dialect}`, () => {
    defineServerCases(harness);
  });
}
