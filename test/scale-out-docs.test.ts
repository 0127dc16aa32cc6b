import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { assertBuilt, runCli } from './cli/run-cli.js';

// The configuration snippets of docs/scale-out.md (its TypeScript example runs in docs-examples.test.ts):
// each parses, and the toolshed flags and variables they use are real ones.

const document = readFileSync(resolve(import.meta.dirname, '..', 'docs', 'scale-out.md'), 'utf8');

function block(language: string): string {
  const found = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(document);
  if (found === null) throw new Error(`docs/scale-out.md has no ${language} block`);
  return found[1] as string;
}

/** A systemd unit: `[Section]` and `Key=Value` lines only; the keys of each section. */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[([A-Za-z]+)\]$/.exec(line);
    if (header !== null) {
      current = new Map();
      sections.set(header[1] as string, current);
      continue;
    }
    const pair = /^([A-Za-z]+)=(.+)$/.exec(line);
    if (pair === null || current === undefined) throw new Error(`line ${index + 1} is not a unit line: ${line}`);
    current.set(pair[1] as string, [...(current.get(pair[1] as string) ?? []), pair[2] as string]);
  }
  return sections;
}

/** nginx: balanced blocks, every directive ended by `;`. Returns the directives as word lists. */
function parseNginx(text: string): string[][] {
  const source = text.replace(/#[^\n]*/g, '');
  const directives: string[][] = [];
  let depth = 0;
  let words = '';
  for (const char of source) {
    if (char === '{' || char === ';') {
      directives.push(words.trim().split(/\s+/));
      words = '';
      if (char === '{') depth += 1;
    } else if (char === '}') {
      if (words.trim() !== '') throw new Error(`directive without ';': ${words.trim()}`);
      depth -= 1;
      if (depth < 0) throw new Error('unbalanced }');
    } else words += char;
  }
  if (depth !== 0 || words.trim() !== '') throw new Error('unbalanced blocks or a trailing directive');
  return directives;
}

let serveHelp = '';
beforeAll(async () => {
  assertBuilt();
  const io = await runCli(['serve', '--help']);
  serveHelp = io.stdout;
});

describe('docs/scale-out.md configuration snippets', () => {
  it('has a systemd unit that parses and runs toolshed serve on its instance port and database', () => {
    const unit = parseUnit(block('ini'));
    expect([...unit.keys()]).toEqual(['Unit', 'Service', 'Install']);
    const service = unit.get('Service') as Map<string, string[]>;
    const exec = (service.get('ExecStart') ?? [])[0] ?? '';
    expect(exec).toMatch(/^\/usr\/local\/bin\/toolshed serve .*--port %i/);
    for (const flag of exec.match(/--[a-z-]+/g) ?? []) expect(serveHelp).toContain(flag);
    const variable = (service.get('Environment') ?? []).find((value) => value.startsWith('TOOLSHED_DATABASE_URL='));
    const url = new URL((variable ?? '').slice('TOOLSHED_DATABASE_URL='.length).replace('%i', '4319'));
    expect(url.protocol).toBe('postgres:');
    expect(url.searchParams.get('application_name')).toBe('toolshed-4319');
  });

  it('has an nginx balancer that parses, over three instances, with buffering off for SSE', () => {
    const directives = parseNginx(block('nginx'));
    expect(directives.filter((words) => words[0] === 'server' && words.length === 2).map((words) => words[1])).toEqual([
      '127.0.0.1:4319',
      '127.0.0.1:4320',
      '127.0.0.1:4321',
    ]);
    expect(directives).toContainEqual(['proxy_buffering', 'off']);
    expect(directives).toContainEqual(['proxy_pass', 'http://toolshed']);
  });

  it('has a compose file that parses, with three instances on one database, each naming its connections', () => {
    const compose = parse(block('yaml'), { merge: true }) as {
      services: Record<string, { command?: string[]; environment?: Record<string, string> }>;
    };
    const instances = Object.entries(compose.services).filter(([name]) => name.startsWith('toolshed-'));
    expect(instances.map(([name]) => name)).toEqual(['toolshed-a', 'toolshed-b', 'toolshed-c']);
    const names = new Set<string>();
    for (const [, service] of instances) {
      const command = service.command ?? [];
      // The installed command, never `npx toolshed` (whatever the registry holds under that name).
      expect(command.slice(0, 2)).toEqual(['toolshed', 'serve']);
      const serveFlags = command.slice(2).filter((word) => word.startsWith('--'));
      expect(serveFlags).toEqual(['--host', '--port', '--config']);
      for (const flag of serveFlags) expect(serveHelp).toContain(flag);
      const url = new URL(service.environment?.TOOLSHED_DATABASE_URL ?? '');
      expect(`${url.protocol}//${url.host}${url.pathname}`).toBe('postgres://postgres:5432/toolshed');
      names.add(url.searchParams.get('application_name') ?? '');
      expect(service.environment?.TOOLSHED_SECRET_KEY).toMatch(/^\$\{TOOLSHED_SECRET_KEY\}$/);
    }
    expect(names.size).toBe(3);
    expect(compose.services.postgres).toBeDefined();
  });
});
