import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-cli.js';

const BUILT = join(ROOT, 'dist', 'web');
const LIMIT_BYTES = 300 * 1024;

function built(): { index: string; assets: string[] } {
  if (!existsSync(join(BUILT, 'index.html'))) {
    throw new Error('dist/web/index.html is missing: run `npm run build` (it builds the web catalog with Vite).');
  }
  return { index: readFileSync(join(BUILT, 'index.html'), 'utf8'), assets: readdirSync(join(BUILT, 'assets')) };
}

describe('the built web catalog', () => {
  it('keeps all of its JavaScript under 300 kB gzipped', () => {
    const scripts = built().assets.filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    const gzipped = scripts.reduce(
      (total, name) => total + gzipSync(readFileSync(join(BUILT, 'assets', name)), { level: 9 }).length,
      0,
    );
    expect(gzipped).toBeLessThan(LIMIT_BYTES);
  });

  it('loads only its own hashed files: no fonts, stylesheets or scripts from elsewhere', () => {
    const { index, assets } = built();
    const references = [...index.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(references.length).toBeGreaterThan(0);
    for (const reference of references) {
      expect(reference, reference).toMatch(/^(\/assets\/[\w.-]+-[\w-]{8}\.(js|css)|data:image\/svg\+xml,.*)$/);
    }
    for (const name of assets.filter((asset) => asset.endsWith('.css'))) {
      const css = readFileSync(join(BUILT, 'assets', name), 'utf8');
      expect(css, name).not.toMatch(/@import|url\(\s*['"]?(https?:)?\/\//);
    }
  });
});
