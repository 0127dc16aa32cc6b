/** A `${VAR}` reference that could not be expanded. */
export interface ExpansionProblem {
  pointer: string;
  variable: string;
}

/** A string that took at least one value from the environment, and how it was written. */
export interface Expansion {
  /** JSON Pointer of the string. */
  pointer: string;
  /** The string as written, with its `${VAR}` references (`Bearer ${TOKEN}`). */
  written: string;
}

/**
 * Expand `${VAR}` and `${VAR:-default}` in every string of `value` from `env`; `$$` stands for a
 * literal `$`. Returns the expanded copy, the variables that were unset and had no default, and the
 * strings that took a value from `env` (`expansions`), so that messages can quote those as written
 * rather than show what the environment holds. A string that used only defaults is not an expansion.
 *
 * @example
 * ```ts
 * const { value, expansions } = expandEnv({ url: '${BASE:-http://localhost}/api', key: '${KEY}' }, { KEY: 'k' });
 * // value: { url: 'http://localhost/api', key: 'k' }; expansions: [{ pointer: '/key', written: '${KEY}' }]
 * ```
 */
export function expandEnv(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
): { value: unknown; problems: ExpansionProblem[]; expansions: Expansion[] } {
  const problems: ExpansionProblem[] = [];
  const expansions: Expansion[] = [];
  const expand = (node: unknown, pointer: string): unknown => {
    if (typeof node === 'string') {
      if (!node.includes('$')) return node;
      let fromEnvironment = false;
      const expanded = node.replace(
        /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
        (match, name: string | undefined, fallback: string | undefined) => {
          if (match === '$$') return '$';
          const found = env[name!];
          if (found !== undefined && found !== '') {
            fromEnvironment = true;
            return found;
          }
          if (fallback !== undefined) return fallback;
          problems.push({ pointer, variable: name! });
          return '';
        },
      );
      if (fromEnvironment) expansions.push({ pointer, written: node });
      return expanded;
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
  return { value: expand(value, ''), problems, expansions };
}
