/**
 * A property of a tool's input schema mirrored into an HTTP header (2026-07-28, `x-mcp-header`): the
 * chain of `properties` keys that leads to it, its header name and its JSON Schema type.
 */
interface ParamHeader {
  path: string[];
  header: string;
  type: string | undefined;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const MAX_DEPTH = 32;

const declared = new WeakMap<object, ParamHeader[]>();

/**
 * Where the `Mcp-Param-*` headers of a 2026-07-28 `tools/call` disagree with its arguments, as the
 * message of a `-32020` (HeaderMismatch) error; `undefined` when they agree. For each property of
 * `inputSchema` reachable through `properties` that names a header with `x-mcp-header`, a value in
 * `args` (not `null`) must come with `Mcp-Param-<name>` carrying the same value: plain, or Base64 as
 * `=?base64?…?=`; numbers compare as numbers (`42.0` is `42`). A header without a value in the body
 * is ignored.
 *
 * @example
 * ```ts
 * const schema = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } };
 * paramHeaderMismatch(schema, { region: 'eu' }, new Headers({ 'mcp-param-region': 'us' }));
 * // "the Mcp-Param-Region header is \"us\" but the arguments have region=\"eu\""
 * ```
 */
export function paramHeaderMismatch(inputSchema: unknown, args: unknown, headers: Headers): string | undefined {
  if (typeof inputSchema !== 'object' || inputSchema === null) return undefined;
  let headersOfTool = declared.get(inputSchema);
  if (headersOfTool === undefined) {
    headersOfTool = [];
    collect(inputSchema, [], headersOfTool);
    declared.set(inputSchema, headersOfTool);
  }
  for (const { path, header, type } of headersOfTool) {
    const value = valueAt(args, path);
    if (value === undefined || value === null) continue;
    const expected = asHeaderText(value);
    if (expected === undefined) continue;
    const name = `Mcp-Param-${header}`;
    const where = path.join('.');
    const sent = headers.get(name);
    if (sent === null) return `the arguments have ${where}=${JSON.stringify(value)} but the ${name} header is missing`;
    const decoded = decodeHeader(sent);
    if (decoded === undefined) return `the ${name} header is not valid Base64 between =?base64? and ?=`;
    const numeric = (type === 'integer' || type === 'number') && typeof value === 'number' && DECIMAL.test(decoded);
    if (numeric ? Number(decoded) !== value : decoded !== expected) {
      return `the ${name} header is ${JSON.stringify(decoded)} but the arguments have ${where}=${JSON.stringify(value)}`;
    }
  }
  return undefined;
}

function collect(schema: object, path: string[], into: ParamHeader[]): void {
  if (path.length > MAX_DEPTH) return;
  const fields = schema as Record<string, unknown>;
  const header = fields['x-mcp-header'];
  if (path.length > 0 && typeof header === 'string' && TOKEN.test(header)) {
    into.push({ path, header, type: typeof fields.type === 'string' ? fields.type : undefined });
  }
  const properties = fields.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return;
  for (const [key, child] of Object.entries(properties)) {
    if (typeof child === 'object' && child !== null) collect(child, [...path, key], into);
  }
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function asHeaderText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function decodeHeader(value: string): string | undefined {
  if (!value.startsWith(SENTINEL_PREFIX) || !value.endsWith(SENTINEL_SUFFIX)) return value;
  const encoded = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!BASE64.test(encoded)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'));
  } catch {
    return undefined;
  }
}
