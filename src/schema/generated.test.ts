import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript build script, without type declarations.
import { generateValidatorSources } from '../../scripts/generate-validators.mjs';
import { CONFIG_SCHEMA } from '../config/config-schema.js';
import { TOOL_DEFINITION_SCHEMA } from '../definitions/definition-schema.js';

describe('generated validators', () => {
  const sources = generateValidatorSources({
    definitionSchema: TOOL_DEFINITION_SCHEMA,
    configSchema: CONFIG_SCHEMA,
  }) as Record<string, string>;

  for (const [name, source] of Object.entries(sources)) {
    it(`${name} matches its schema (run npm run build && npm run generate after changing a schema)`, () => {
      expect(readFileSync(join(import.meta.dirname, 'generated', name), 'utf8')).toBe(source);
    });
  }
});
