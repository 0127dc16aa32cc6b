// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the inputs are ${VAR} references as written in toolshed.yaml.
import { describe, expect, it } from 'vitest';
import { expandEnv } from './expand-env.js';

describe('expandEnv', () => {
  it('lists the strings that took a value from the environment, as written', () => {
    const result = expandEnv(
      {
        url: '${BASE:-http://localhost}/api',
        headers: { Authorization: 'Bearer ${TOKEN}' },
        args: ['$$HOME', '${EMPTY:-x}', '${NAME}-${MISSING}'],
      },
      { TOKEN: 't0k', EMPTY: '', NAME: 'n' },
    );
    expect(result.value).toEqual({
      url: 'http://localhost/api',
      headers: { Authorization: 'Bearer t0k' },
      args: ['$HOME', 'x', 'n-'],
    });
    expect(result.expansions).toEqual([
      { pointer: '/headers/Authorization', written: 'Bearer ${TOKEN}' },
      { pointer: '/args/2', written: '${NAME}-${MISSING}' },
    ]);
    expect(result.problems).toEqual([{ pointer: '/args/2', variable: 'MISSING' }]);
  });
});
