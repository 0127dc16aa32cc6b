/** A `${VAR}` reference that could not be expanded. */
export interface ExpansionProblem {
  pointer: string;
  variable: string;
}

/**
 * Expand `${VAR}` and `${VAR:-default}` in every string of `value` from `env`; `$$` stands for a
 * literal `$`. Returns the expanded copy and the variables that were unset and had no default.
 *
 * @example
 * ```ts
 * expandEnv({ url: '${BASE:-http://localhost}/api' }, {}).value; // { url: 'http://localhost/api' }
 * ```
 */
export function expandEnv(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
): { value: unknown; problems: ExpansionProblem[] } {
  const problems: ExpansionProblem[] = [];
  const expand = (node: unknown, pointer: string): unknown => {
    if (typeof node === 'string') {
      if (!node.includes('$')) return node;
      return node.replace(
        /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
        (match, name: string | undefined, fallback: string | undefined) => {
          if (match === '$$') return '$';
          const found = env[name!];
          if (found !== undefined && found !== '') return found;
          if (fallback !== undefined) return fallback;
          problems.push({ pointer, variable: name! });
          return '';
        },
      );
    }
    if (Array.isArray(node)) return node.map((item, index) => expand(item, `${pointer}/${index}`));
    if (typeof node === 'object' && node !== null) {
      const result: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) {
        result[key] = expand(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
      }
      return result;
    }
    return node;
  };
  return { value: expand(value, ''), problems };
}
