import { describe, expect, it } from 'vitest';
import {
  defineResource,
  defineResourceTemplate,
  type ResourceOptions,
  type ResourceTemplateOptions,
} from './define-resource.js';

describe('defineResource', () => {
  it('reads fixed text, a fixed blob, and what read returns', async () => {
    expect(await defineResource({ uri: 'docs://a', name: 'a', mimeType: 'text/plain', text: 'A' }).read()).toEqual([
      { uri: 'docs://a', mimeType: 'text/plain', text: 'A' },
    ]);
    expect(await defineResource({ uri: 'docs://b', name: 'b', blob: 'AAAA' }).read()).toEqual([
      { uri: 'docs://b', blob: 'AAAA' },
    ]);
    let count = 0;
    const live = defineResource({ uri: 'docs://c', name: 'c', read: () => `read ${++count}`, subscribable: true });
    expect(live.subscribable).toBe(true);
    expect(await live.read()).toEqual([{ uri: 'docs://c', text: 'read 1' }]);
    expect(await live.read()).toEqual([{ uri: 'docs://c', text: 'read 2' }]);
  });

  it('refuses contents without a uri and text or blob from read', async () => {
    const broken = defineResource({ uri: 'docs://d', name: 'd', read: () => [{ uri: 'docs://d' }] as never });
    await expect(broken.read()).rejects.toThrow(
      "Resource 'docs://d' read a content item without a uri and text or blob: an object.",
    );
  });

  it('refuses an invalid definition with the field at fault', () => {
    const cases: Array<[unknown, string]> = [
      [{ uri: 'no scheme', name: 'x', text: '' }, 'Resource uri "no scheme" is invalid'],
      [{ uri: 'docs://x', name: '', text: '' }, 'Resource \'docs://x\' needs a non-empty name, got "".'],
      [{ uri: 'docs://x', name: 'x' }, "Resource 'docs://x' needs exactly one of text, blob and read, got none."],
      [{ uri: 'docs://x', name: 'x', text: 'a', blob: 'AAAA' }, 'got text and blob.'],
      [{ uri: 'docs://x', name: 'x', blob: 'not base64' }, "Resource 'docs://x': blob must be base64 text"],
      [{ uri: `docs://${'x'.repeat(3000)}`, name: 'x', text: '' }, 'at most 2048 characters'],
    ];
    for (const [options, message] of cases) expect(() => defineResource(options as ResourceOptions)).toThrow(message);
  });
});

describe('defineResourceTemplate', () => {
  const page = defineResourceTemplate({
    uriTemplate: 'docs://pages/{slug}/v{version}',
    name: 'page',
    read: ({ slug, version }) => `${slug}@${version}`,
    complete: { slug: ['intro', 'install'], version: (typed) => [`${typed}1`, `${typed}2`] },
  });

  it('matches one path segment per variable, percent-decoded, and nothing else', () => {
    expect(page.variables).toEqual(['slug', 'version']);
    expect(page.match('docs://pages/intro/v2')).toEqual({ slug: 'intro', version: '2' });
    expect(page.match('docs://pages/a%20b/v1')).toEqual({ slug: 'a b', version: '1' });
    expect(page.match('docs://pages/a/b/v1')).toBeUndefined();
    expect(page.match('docs://pages/%E0%A4%A/v1')).toBeUndefined();
    expect(page.match('docs://pages/intro/v2?x=1')).toBeUndefined();
    expect(page.match(`docs://pages/${'a'.repeat(3000)}/v1`)).toBeUndefined();
  });

  it('lets a {+name} variable span path segments', async () => {
    const files = defineResourceTemplate({
      uriTemplate: 'files://{+path}',
      name: 'files',
      read: ({ path }) => path ?? '',
    });
    expect(files.match('files://notes/2026/plan.md')).toEqual({ path: 'notes/2026/plan.md' });
    expect(files.match('files://a%2Fb')).toEqual({ path: 'a/b' });
    expect(files.match('files://x?y')).toBeUndefined();
    expect(await files.read('files://a/b')).toEqual([{ uri: 'files://a/b', text: 'a/b' }]);
  });

  it('reads a matching URI and refuses another', async () => {
    expect(await page.read('docs://pages/intro/v3')).toEqual([{ uri: 'docs://pages/intro/v3', text: 'intro@3' }]);
    await expect(page.read('docs://other')).rejects.toThrow(
      "Resource template 'docs://pages/{slug}/v{version}' does not match 'docs://other'.",
    );
  });

  it('completes variables from lists and functions, and nothing for an unknown one', async () => {
    expect(await page.complete('slug', 'in')).toEqual(['intro', 'install']);
    expect(await page.complete('version', '3')).toEqual(['31', '32']);
    expect(await page.complete('constructor', '')).toEqual([]);
  });

  it('refuses templates beyond level 1 and completions of unknown variables', () => {
    const read = () => '';
    const cases: Array<[unknown, string]> = [
      [{ uriTemplate: 'docs://{?query}', name: 'x', read }, "'{?query' is not a {name} or {+name} variable"],
      [{ uriTemplate: 'docs://{a}/{a}', name: 'x', read }, "uses the variable 'a' twice."],
      [{ uriTemplate: 'docs://plain', name: 'x', read }, 'has no {variable}; define a resource instead.'],
      [{ uriTemplate: 'docs://{a}', name: 'x' }, 'read must be a function, got nothing.'],
      [
        { uriTemplate: 'docs://{a}', name: 'x', read, complete: { b: [] } },
        "has no variable 'b' to complete; its variables: a.",
      ],
      [{ uriTemplate: 'docs://{a', name: 'x', read }, "'{' is not a {name} or {+name} variable"],
    ];
    for (const [options, message] of cases) {
      expect(() => defineResourceTemplate(options as ResourceTemplateOptions)).toThrow(message);
    }
  });
});
