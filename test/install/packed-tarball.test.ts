import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examplesOf } from '../support/doc-examples.js';

// What a new user gets: `npm pack` of this checkout, installed without dev dependencies into an empty
// folder, then used only through the installed files (the command on PATH, `import 'toolshed'`).

const ROOT = resolve(import.meta.dirname, '..', '..');
const README = join(ROOT, 'README.md');

interface Manifest {
  name: string;
  version: string;
  engines: { node: string };
  bin: Record<string, string>;
  exports: Record<string, string | { types: string; import: string }>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

/** The entry points that need an optional peer dependency, and that peer. */
const OPTIONAL_ENTRY_POINTS: Record<string, string> = { './langchain': '@langchain/core', './ai-sdk': 'ai' };

interface Run {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a process run for the test: without the `npm_*` variables an enclosing
 * `npm test` sets (its prefix would point a nested npm at this checkout), with `bin` first on PATH.
 */
function environment(bin?: string, extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !/^npm_/i.test(entry[0]),
    ),
  );
  const path = [bin, dirname(process.execPath), env.PATH].filter((part) => part !== undefined).join(delimiter);
  return { ...env, ...extra, PATH: path };
}

function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; bin?: string; env?: Record<string, string> },
): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: environment(options.bin, options.env), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (exitCode) => resolvePromise({ exitCode, stdout, stderr }));
    child.stdin.end();
  });
}

async function succeed(command: string, args: readonly string[], options: { cwd: string; bin?: string }) {
  const result = await run(command, args, options);
  if (result.exitCode !== 0) {
    throw new Error(`\`${command} ${args.join(' ')}\` exited ${result.exitCode}:\n${result.stderr}${result.stdout}`);
  }
  return result;
}

/** The lines of a Markdown section, from its `## title` to the next `## `. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${title}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

function codeBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);
}

interface McpServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** The `mcpServers` entries of the JSON blocks of a document that start toolshed itself. */
function documentedServers(file: string): Array<{ name: string; server: McpServerEntry }> {
  return codeBlocks(readFileSync(file, 'utf8'), 'json')
    .filter((block) => block.includes('"mcpServers"'))
    .flatMap((block) => {
      const { mcpServers } = JSON.parse(block) as { mcpServers: Record<string, McpServerEntry> };
      return Object.entries(mcpServers).map(([name, server]) => ({ name, server }));
    })
    .filter(({ server }) => server.command === 'toolshed' || server.args[0]?.endsWith('/bin/toolshed.js'));
}

let work = '';
let app = '';
let installed = '';
let bin = '';
let packed: { filename: string; files: Array<{ path: string }> };
let installOutput: { stdout: string; stderr: string };

beforeAll(async () => {
  for (const built of ['dist/cli-bundle/main.js', 'dist/index.d.ts', 'dist/web/index.html']) {
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run \`npm run build\` first.`);
  }
  work = mkdtempSync(join(tmpdir(), 'toolshed-tarball-'));
  // The checkout's dist/ is what gets packed; `prepare` would rebuild it under the other tests' feet.
  const pack = await succeed('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT });
  [packed] = JSON.parse(pack.stdout) as [typeof packed];
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  // Install scripts are skipped: the only one is better-sqlite3's, which compiles its native module
  // from source where the prebuilt binary cannot be downloaded (70 s or more). The checkout's copy of
  // that module is the same version built for this Node, so it is reused; another version is rebuilt.
  installOutput = await succeed(
    'npm',
    [
      'install',
      '--omit=dev',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--ignore-scripts',
      join(work, packed.filename),
    ],
    { cwd: app },
  );
  installed = join(app, 'node_modules', 'toolshed');
  bin = join(app, 'node_modules', '.bin');
  const native = (root: string) => join(root, 'node_modules', 'better-sqlite3');
  const version = (root: string) =>
    (JSON.parse(readFileSync(join(native(root), 'package.json'), 'utf8')) as { version: string }).version;
  if (version(app) === version(ROOT) && existsSync(join(native(ROOT), 'build', 'Release'))) {
    cpSync(join(native(ROOT), 'build', 'Release'), join(native(app), 'build', 'Release'), { recursive: true });
  } else {
    await succeed('npm', ['rebuild', 'better-sqlite3'], { cwd: app });
  }
}, 900_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('installs on this Node without an engine warning from any dependency', () => {
    expect(`${installOutput.stdout}${installOutput.stderr}`).not.toContain('EBADENGINE');
  });

  it('is named after the package and its version', () => {
    expect(packed.filename).toBe(`${manifest.name}-${manifest.version}.tgz`);
  });

  it('carries dist/ with the web catalog, sandbox scripts and generated validators, and no tests or maps', () => {
    const paths = packed.files.map((file) => file.path);
    expect([...new Set(paths.map((path) => path.split('/')[0]))].sort()).toEqual([
      'LICENSE',
      'README.md',
      'bin',
      'dist',
      'package.json',
    ]);
    expect(paths).toEqual(
      expect.arrayContaining([
        'bin/toolshed.js',
        'dist/cli-bundle/main.js',
        'dist/web/index.html',
        'dist/sandbox/child-host.mjs',
        'dist/sandbox/python/python-child.mjs',
        'dist/sandbox/javascript/javascript-child.mjs',
        ...readdirSync(join(ROOT, 'src', 'schema', 'generated')).map((name) => `dist/schema/generated/${name}`),
      ]),
    );
    expect(paths.some((path) => /^dist\/web\/assets\/.+\.js$/.test(path))).toBe(true);
    expect(paths.filter((path) => /\.test\.|__fixtures__|\.map$/.test(path))).toEqual([]);
  });

  it('has every file that package.json names as an entry point or command', () => {
    const named = [
      ...Object.values(manifest.bin),
      ...Object.values(manifest.exports).flatMap((target) =>
        typeof target === 'string' ? [target] : [target.types, target.import],
      ),
    ].map((path) => path.replace(/^\.\//, ''));
    const paths = new Set(packed.files.map((file) => file.path));
    expect(named.filter((path) => !paths.has(path))).toEqual([]);
  });
});

describe('the installed package, without dev dependencies', () => {
  it('puts the toolshed command on PATH', async () => {
    expect(realpathSync(join(bin, 'toolshed'))).toBe(realpathSync(join(installed, 'bin', 'toolshed.js')));
    const help = await run('toolshed', ['--help'], { cwd: app, bin });
    expect(help.exitCode).toBe(0);
    expect(help.stdout.split('\n')[0]).toBe('Usage: toolshed [options] [command]');
    const version = await run('toolshed', ['--version'], { cwd: app, bin });
    expect(version.stdout).toBe(`${manifest.version}\n`);
  });

  it('describes the built-in read_file in an empty folder, without a configuration', async () => {
    const described = await run('toolshed', ['describe', 'read_file'], { cwd: app, bin });
    expect(described.exitCode).toBe(0);
    expect(described.stdout.split('\n')[0]).toBe('read_file — Read File');
    expect(described.stdout).toContain('\nParameters:\n');
    expect(described.stderr).toBe(
      `note: no configuration or --tools: using the built-in tools; the file tools work in ${app}.\n`,
    );
  });

  it('keeps a service database: creates a workspace and a token for it in a SQLite file', async () => {
    const env = { TOOLSHED_DATABASE_URL: join(work, 'service.db') };
    const created = await run('toolshed', ['workspace', 'create', 'Acme', '--id', 'acme'], { cwd: app, bin, env });
    expect(created).toEqual({ exitCode: 0, stdout: 'acme\n', stderr: '' });
    const token = await run('toolshed', ['token', 'create', '--workspace', 'acme', '--json'], { cwd: app, bin, env });
    expect(token.exitCode, token.stderr).toBe(0);
    expect(JSON.parse(token.stdout)).toMatchObject({ workspaceId: 'acme', token: expect.stringMatching(/^tsk_/) });
  });

  it('imports every entry point; the optional integrations fail only for want of their peer', async () => {
    const entryPoints = Object.keys(manifest.exports).filter((key) => key !== './package.json');
    const script = `
      const outcomes = {};
      for (const entry of ${JSON.stringify(entryPoints)}) {
        try {
          await import(entry === '.' ? 'toolshed' : 'toolshed/' + entry.slice(2));
          outcomes[entry] = 'loads';
        } catch (error) {
          const missing = /Cannot find package '([^']+)'/.exec(error.message);
          outcomes[entry] = missing ? 'needs ' + missing[1] : String(error);
        }
      }
      console.log(JSON.stringify(outcomes));`;
    const imported = await succeed(process.execPath, ['--input-type=module', '-e', script], { cwd: app });
    expect(JSON.parse(imported.stdout)).toEqual(
      Object.fromEntries(
        entryPoints.map((entry) => {
          const peer = OPTIONAL_ENTRY_POINTS[entry];
          return [entry, peer === undefined ? 'loads' : `needs ${peer}`];
        }),
      ),
    );
    for (const peer of Object.values(OPTIONAL_ENTRY_POINTS)) {
      expect(manifest.dependencies[peer]).toBeUndefined();
      expect(manifest.peerDependencies[peer]).toBeDefined();
      expect(manifest.peerDependenciesMeta[peer]?.optional).toBe(true);
    }
  });

  it("type-checks and runs the README's library example, printing what the README shows", async () => {
    const [example] = examplesOf(README);
    expect(example?.output).toBeDefined();
    const folder = join(app, 'readme-example');
    mkdirSync(folder);
    writeFileSync(join(folder, 'example.ts'), example!.code);
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, types: [], outDir: 'out' },
        files: ['example.ts'],
      }),
    );
    // The TypeScript that comes with toolshed (for `toolshed extract`), so no dev dependency is needed.
    const compiled = await run(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], {
      cwd: folder,
    });
    expect(compiled.stdout).toBe('');
    expect(compiled.exitCode).toBe(0);
    const printed = await run(process.execPath, [join('out', 'example.js')], { cwd: folder });
    expect(printed).toEqual({ exitCode: 0, stdout: `${example!.output}\n`, stderr: '' });
  }, 180_000);
});

describe('the MCP client configurations in the documentation', () => {
  const documents = [README, join(ROOT, 'docs', 'mcp.md'), join(ROOT, 'docs', 'cli.md')];
  const configurations = documents.flatMap((file) =>
    documentedServers(file).map((entry) => ({ ...entry, file: file.slice(ROOT.length + 1) })),
  );

  it('show the installed command and the script of a clone or package folder', () => {
    expect(configurations.map(({ file, server }) => `${file}: ${server.command} ${server.args[0]}`)).toEqual([
      'README.md: toolshed mcp',
      'README.md: node /path/to/toolshed/bin/toolshed.js',
      'docs/mcp.md: toolshed mcp',
      'docs/cli.md: toolshed mcp',
    ]);
    expect(Object.keys(manifest.bin)).toEqual(['toolshed']);
    expect(manifest.bin.toolshed).toBe('bin/toolshed.js');
    expect(existsSync(join(ROOT, 'bin', 'toolshed.js'))).toBe(true);
  });

  for (const { file, server } of configurations) {
    it(`${file}: "${server.command} ${server.args.join(' ')}" answers initialize and tools/list`, async () => {
      const project = mkdtempSync(join(work, 'project-'));
      writeFileSync(
        join(project, 'toolshed.yaml'),
        [
          'workspace: .',
          'builtins: [read_file, calculator]',
          'agents:',
          '  - id: assistant',
          '    tools: [calculator]',
        ].join('\n'),
      );
      const args = server.args.map((arg) =>
        arg
          .replace('/path/to/toolshed.yaml', join(project, 'toolshed.yaml'))
          .replace('/path/to/toolshed/', `${installed}/`),
      );
      // Started from an unrelated folder with a desktop app's small environment, as Claude Desktop does.
      const { PATH } = environment(bin);
      const transport = new StdioClientTransport({
        command: server.command,
        args,
        cwd: work,
        env: { PATH: PATH!, ...server.env },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'toolshed-install-test', version: '1.0.0' });
      try {
        await client.connect(transport);
        expect(client.getServerVersion()).toEqual({ name: 'toolshed', version: manifest.version });
        const listing = await client.listTools();
        const expected = args.includes('--agent') ? ['calculator'] : ['calculator', 'read_file'];
        expect(listing.tools.map((tool) => tool.name)).toEqual(expected);
        const result = await client.callTool({ name: 'calculator', arguments: { expression: '2 ^ 10' } });
        expect(result).toEqual({ content: [{ type: 'text', text: '{"expression":"2 ^ 10","result":1024}' }] });
      } finally {
        await client.close();
      }
    });
  }
});

describe("the README's install section", () => {
  const install = section(readFileSync(README, 'utf8'), 'Install');

  it('names the commands and the tarball that npm pack writes', () => {
    const commands = codeBlocks(install, 'sh')
      .flatMap((block) => block.split('\n'))
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((line) => line !== '');
    expect(commands).toEqual([
      'npm ci && npm link',
      'npm pack',
      `npm install -g ./${packed.filename}`,
      `npm install ./${packed.filename} zod`,
    ]);
  });

  it('states the Node.js version of package.json engines', () => {
    expect(manifest.engines.node).toMatch(/^>=\d+\.\d+$/);
    expect(install).toContain(`Node.js ${manifest.engines.node.slice(2)} or later`);
  });

  it('lists every entry point of package.json', () => {
    const listed = [...install.matchAll(/`(toolshed(?:\/[a-z-]+)?)`/g)].map((match) => match[1]!);
    const entryPoints = Object.keys(manifest.exports)
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? 'toolshed' : `toolshed/${key.slice(2)}`));
    expect([...new Set(listed)].sort()).toEqual([...entryPoints].sort());
  });
});
