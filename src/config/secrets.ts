/** A literal credential found in configuration. */
export interface SecretFinding {
  /** JSON Pointer of the value. */
  pointer: string;
  /** Dotted path (`custom_tools[0].auth.token`). */
  path: string;
  /** Why it looks like a secret. */
  reason: string;
}

const SECRET_KEY =
  /(^|[_-])(api[_-]?key|apikey|token|secret|password|passwd|authorization|auth|private[_-]?key|access[_-]?key|client[_-]?secret|credentials?)$/i;

// Shapes of well-known credentials (prefixes published by their issuers).
const SECRET_SHAPES: Array<[RegExp, string]> = [
  [/\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/, 'an API key (sk-...)'],
  [/\bgh[pousr]_[A-Za-z0-9]{30,}/, 'a GitHub token'],
  [/\bgithub_pat_[A-Za-z0-9_]{30,}/, 'a GitHub token'],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/, 'a Slack token'],
  [/\bAKIA[0-9A-Z]{16}\b/, 'an AWS access key'],
  [/\bAIza[0-9A-Za-z_-]{35}\b/, 'a Google API key'],
  [/\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, 'a JSON Web Token'],
  [/^Bearer\s+[A-Za-z0-9._~+/-]{16,}=*$/, 'a bearer token'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'a private key'],
];

/**
 * Literal secrets in configuration data: a secret-named key (`api_key`, `token`, `password`,
 * `authorization`, ...) with a literal value, or any value shaped like a known credential. Values
 * that are only `${VAR}` references are fine (they expand from the environment), and keys ending in
 * `_env` name variables, not values (so do the keys of a mapping under such a key, as in
 * `headers_env: { Authorization: MY_TOKEN_VARIABLE }`).
 *
 * @example
 * ```ts
 * findLiteralSecrets({ tools: [{ api_key: 'abc123' }] });
 * // [{ pointer: '/tools/0/api_key', path: 'tools[0].api_key', reason: "a literal value for the secret-named key 'api_key'" }]
 * ```
 */
export function findLiteralSecrets(value: unknown): SecretFinding[] {
  const findings: SecretFinding[] = [];
  const visit = (node: unknown, pointer: string, path: string, key: string | undefined, namesVariable = false) => {
    if (typeof node === 'string') {
      const literal = node.replace(/\$\{[^}]*\}/g, '').trim();
      if (key !== undefined && !namesVariable && !/_env$/i.test(key) && SECRET_KEY.test(key) && literal !== '') {
        findings.push({ pointer, path, reason: `a literal value for the secret-named key '${key}'` });
        return;
      }
      for (const [shape, what] of SECRET_SHAPES) {
        if (shape.test(literal)) {
          findings.push({ pointer, path, reason: `a value shaped like ${what}` });
          return;
        }
      }
      return;
    }
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, `${pointer}/${index}`, `${path}[${index}]`, key);
      return;
    }
    if (typeof node === 'object' && node !== null) {
      const holdsVariableNames = key !== undefined && /_env$/i.test(key);
      for (const [childKey, child] of Object.entries(node)) {
        const escaped = childKey.replaceAll('~', '~0').replaceAll('/', '~1');
        const childPath = path === '' ? childKey : `${path}.${childKey}`;
        visit(child, `${pointer}/${escaped}`, childPath, childKey, holdsVariableNames);
      }
    }
  };
  visit(value, '', '', undefined);
  return findings;
}
