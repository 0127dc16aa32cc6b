/**
 * Generated inputs for the scale cases: small, realistic tool schemas and folders of YAML
 * definition files with their handler module.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Handler exports of the generated `handlers.js`; definitions cycle through them. */
const HANDLER_COUNT = 10;

const CATEGORIES = ['filesystem', 'code', 'email', 'web', 'math', 'general'];

/**
 * A small JSON Schema of the kind real tools have: 1 to 4 arguments out of a string query, an
 * integer limit with bounds, an enum and a boolean, each with a description that names tool `index`
 * (so no two schemas are the same text and none shares a compiled validator), the first one required.
 *
 * @param {number} index
 * @param {string} [salt] mixed into descriptions so a later round compiles fresh schemas
 * @returns {{ type: 'object', properties: Record<string, object>, required: string[] }}
 */
export function smallSchema(index, salt = '') {
  const pool = [
    ['query', { type: 'string', description: `Text to look for with tool ${index}${salt}`, minLength: 1 }],
    ['limit', { type: 'integer', description: `Most results tool ${index} returns`, minimum: 1, maximum: 100 }],
    ['sort', { type: 'string', enum: ['relevance', 'newest', 'oldest'], description: 'Result order' }],
    ['include_archived', { type: 'boolean', description: 'Also search archived items' }],
  ];
  const count = 1 + (index % pool.length);
  return { type: 'object', properties: Object.fromEntries(pool.slice(0, count)), required: [pool[0][0]] };
}

/**
 * Arguments valid for `smallSchema(index)`.
 *
 * @param {number} index
 * @returns {Record<string, unknown>}
 */
export function smallSchemaArgs(index) {
  return index % 4 === 0 ? { query: 'invoice' } : { query: 'invoice', limit: 10 };
}

/**
 * The YAML text of tool `index`'s definition, in the form of SPEC §4.1.
 *
 * @param {number} index
 * @returns {string}
 */
function definitionYaml(index) {
  const name = `tool_${String(index).padStart(4, '0')}`;
  return `name: ${name}
title: Tool ${index}
description: Search the ${CATEGORIES[index % CATEGORIES.length]} items for text and return the matches (tool ${index}).
when_to_use: When the user asks about ${CATEGORIES[index % CATEGORIES.length]} items.
category: ${CATEGORIES[index % CATEGORIES.length]}
tags: [search, generated]
parameters:
  type: object
  properties:
    query: {type: string, description: Text to look for, minLength: 1}
    limit: {type: integer, minimum: 1, maximum: 100, description: Most results to return}
    sort: {type: string, enum: [relevance, newest, oldest]}
  required: [query]
handler: ./handlers.js#handler${index % HANDLER_COUNT}
timeout: 30.0
annotations: {read_only: true}
metadata: {version: "1.0"}
`;
}

/**
 * Write `count` YAML definition files (`tool_0000.yaml`, ...) and the `handlers.js` module they
 * name into a fresh temporary folder, and return it with a function that deletes it.
 *
 * @param {number} count
 * @returns {{ dir: string, remove: () => void }}
 */
export function writeYamlTools(count) {
  const dir = mkdtempSync(join(tmpdir(), 'toolshed-bench-'));
  // The temp folder has no package.json above it: declare the handler module ESM.
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const handlers = Array.from(
    { length: HANDLER_COUNT },
    (_, index) =>
      `export function handler${index}({ query, limit = 10 }) {\n  return { query, limit, handler: ${index} };\n}\n`,
  );
  writeFileSync(join(dir, 'handlers.js'), handlers.join('\n'));
  for (let index = 0; index < count; index++) {
    writeFileSync(join(dir, `tool_${String(index).padStart(4, '0')}.yaml`), definitionYaml(index));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
