import { describe, expect, it } from 'vitest';
import { formatBytes, resolveFileToolLimits } from './filesystem/file-tool-limits.js';
import { formatListing } from './filesystem/list-files-tool.js';
import {
  hasControlCharacter,
  joinVirtual,
  normalizeVirtualPath,
  virtualSegments,
} from './filesystem/normalize-virtual-path.js';
import { RegexLineMatcher } from './filesystem/regex-line-matcher.js';
import { createRestrictedMath } from './math/restricted-math.js';
import { isDuckDuckGoChallenge, parseDuckDuckGoHtml } from './web/parse-duckduckgo-html.js';
import { classifyAddress, isPublicAddress } from './web/ssrf-guard.js';
import { normalizeBaseUrl } from './web/web-search-result.js';

// The @example blocks of the built-ins' TSDoc, run as written.
describe('documented examples', () => {
  it('normalizeVirtualPath and friends', () => {
    expect(normalizeVirtualPath('data/./inputs/../report.txt')).toBe('/data/report.txt');
    expect(normalizeVirtualPath('/')).toBe('/');
    expect(() => normalizeVirtualPath('../secrets')).toThrow('leads outside the workspace root');
    expect(virtualSegments('/a/b.txt')).toEqual(['a', 'b.txt']);
    expect(joinVirtual('/', 'a')).toBe('/a');
    expect(joinVirtual('/a', 'b')).toBe('/a/b');
    expect(hasControlCharacter('a\nb')).toBe(true);
  });

  it('limits and listings', () => {
    expect(resolveFileToolLimits({ maxReadBytes: 4096 }).maxWriteBytes).toBe(5242880);
    expect(() => resolveFileToolLimits({ maxReadBytes: 0 })).toThrow(RangeError);
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(20 * 1024 * 1024)).toBe('20 MB');
    expect(formatListing('/data', [{ path: '/data/report.txt', type: 'file', size: 1024 }])).toBe(
      'Contents of /data:\n[FILE] /data/report.txt (1024 bytes)',
    );
  });

  it('RegexLineMatcher', async () => {
    const matcher = new RegexLineMatcher('TODO', 'i', { maxLineLength: 4000, contextLines: 0, maxShownChars: 500 });
    try {
      expect(await matcher.match('a\n// todo: b\n', 100, Date.now() + 5_000)).toEqual([
        { line: 2, text: '// todo: b' },
      ]);
    } finally {
      await matcher.close();
    }
  });

  it('the SSRF address classes', () => {
    expect(classifyAddress('169.254.169.254')).toEqual({ range: 'linkLocal', isPublic: false });
    expect(classifyAddress('::ffff:10.0.0.1')).toEqual({ range: 'private', isPublic: false });
    expect(classifyAddress('93.184.215.14')).toEqual({ range: 'unicast', isPublic: true });
    expect(isPublicAddress('10.0.0.1')).toBe(false);
    expect(isPublicAddress('1.1.1.1')).toBe(true);
  });

  it('search helpers', () => {
    const html =
      '<div class="result"><a class="result__a" href="https://example.com/">Example</a>' +
      '<a class="result__snippet">An <b>example</b> page</a></div>';
    expect(parseDuckDuckGoHtml(html, 10)).toEqual([
      { title: 'Example', link: 'https://example.com/', snippet: 'An example page' },
    ]);
    expect(isDuckDuckGoChallenge('<div class="anomaly-modal__modal">')).toBe(true);
    expect(normalizeBaseUrl('http://127.0.0.1:4000/', 'serper_search')).toBe('http://127.0.0.1:4000');
    expect(() => normalizeBaseUrl('ftp://x', 'serper_search')).toThrow('must be an http or https URL');
  });

  it('the restricted math evaluator', () => {
    const math = createRestrictedMath();
    expect(math.evaluate('sqrt(16) + 2^3')).toBe(12);
    expect(() => math.evaluate('[].constructor')).toThrow('Property access');
    expect(() => math.evaluate('x + 1')).toThrow("Unknown name 'x'");
  });
});
