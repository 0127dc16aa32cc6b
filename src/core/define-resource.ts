import { matching } from './define-prompt.js';
import { describeValue } from './define-tool.js';
import { ToolRegistrationError } from './errors/tool-registration-error.js';
import { isPlainObject } from './json-schema.js';

/**
 * The contents of a resource as `resources/read` returns them: text or base64 `blob`.
 *
 * @example
 * ```ts
 * const contents: ResourceContents = { uri: 'docs://guide', mimeType: 'text/markdown', text: '# Guide' };
 * ```
 */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/** The fields a resource and a resource template share. */
interface ResourceOptionsBase {
  /** A short identifier shown by clients (any non-empty text). */
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Free-form data for the host (where the resource was defined); never sent to clients. */
  metadata?: Record<string, unknown>;
}

/** What {@link defineResource} takes: a URI and fixed `text`, fixed base64 `blob`, or `read`. */
export interface ResourceOptions extends ResourceOptionsBase {
  uri: string;
  text?: string;
  blob?: string;
  read?: () => string | ResourceContents[] | Promise<string | ResourceContents[]>;
  /** True when the contents can change: clients may subscribe to it (`resources/subscribe`). */
  subscribable?: boolean;
}

/**
 * A resource as a registry holds it (built by {@link defineResource}).
 *
 * @example
 * ```ts
 * const [contents] = await resource.read();
 * ```
 */
export interface ResourceSpec {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly subscribable: boolean;
  readonly metadata?: Readonly<Record<string, unknown>>;
  read(): Promise<ResourceContents[]>;
}

/** What {@link defineResourceTemplate} takes. */
export interface ResourceTemplateOptions extends ResourceOptionsBase {
  /**
   * An RFC 6570 template of `{name}` variables (one path segment: `docs://pages/{slug}`) and `{+name}`
   * ones (reserved expansion, any path: `files://{+path}`).
   */
  uriTemplate: string;
  /** The contents for a URI the template matched, given its variables. */
  read: (
    variables: Readonly<Record<string, string>>,
    uri: string,
  ) => string | ResourceContents[] | Promise<string | ResourceContents[]>;
  /** Completion candidates for each variable: a list, or a function of what was typed so far. */
  complete?: Record<string, readonly string[] | ((value: string) => readonly string[] | Promise<readonly string[]>)>;
}

/**
 * A resource template as a registry holds it (built by {@link defineResourceTemplate}).
 *
 * @example
 * ```ts
 * template.match('docs://pages/intro'); // { slug: 'intro' }
 * ```
 */
export interface ResourceTemplateSpec {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly variables: readonly string[];
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** The variables of `uri`, or `undefined` when the template does not match it. */
  match(uri: string): Record<string, string> | undefined;
  read(uri: string): Promise<ResourceContents[]>;
  /** Completion candidates for `variable` starting with `value` (at most 100). */
  complete(variable: string, value: string): Promise<string[]>;
}

const MAX_URI_LENGTH = 2048;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Define a resource once — for MCP's `resources/list` and `resources/read`.
 *
 * Throws {@link ToolRegistrationError} (`INVALID_DEFINITION`) for a URI without a scheme, an empty
 * name, a blob that is not base64, or not exactly one of `text`, `blob` and `read`.
 *
 * @example
 * ```ts
 * import { defineResource } from 'toolshed';
 *
 * const guide = defineResource({ uri: 'docs://style-guide', name: 'style-guide', mimeType: 'text/markdown', text: '# Style' });
 * const [contents] = await guide.read();
 * // contents → { uri: 'docs://style-guide', mimeType: 'text/markdown', text: '# Style' }
 * ```
 */
export function defineResource(options: ResourceOptions): ResourceSpec {
  if (!isPlainObject(options)) {
    throw invalid(undefined, undefined, `A resource definition must be an object, got ${describeValue(options)}.`);
  }
  const uri = checkUri(options.uri, 'uri', 'Resource');
  const name = checkName(uri, options.name);
  const given = (['text', 'blob', 'read'] as const).filter((key) => options[key] !== undefined);
  if (given.length !== 1) {
    throw invalid(
      uri,
      'text',
      `Resource '${uri}' needs exactly one of text, blob and read, got ${given.length === 0 ? 'none' : given.join(' and ')}.`,
    );
  }
  const { text, blob, read } = options;
  if (text !== undefined && typeof text !== 'string') {
    throw invalid(uri, 'text', `Resource '${uri}': text must be a string, got ${describeValue(text)}.`);
  }
  if (blob !== undefined && (typeof blob !== 'string' || blob.length % 4 !== 0 || !BASE64.test(blob))) {
    throw invalid(uri, 'blob', `Resource '${uri}': blob must be base64 text, got ${describeValue(blob)}.`);
  }
  if (read !== undefined && typeof read !== 'function') {
    throw invalid(uri, 'read', `Resource '${uri}': read must be a function, got ${describeValue(read)}.`);
  }
  const mimeType = options.mimeType;
  const fixed = (body: { text: string } | { blob: string }): ResourceContents[] => [
    { uri, ...(mimeType === undefined ? {} : { mimeType }), ...body } as ResourceContents,
  ];
  return {
    uri,
    name,
    ...optionalFields(options),
    subscribable: options.subscribable === true,
    async read() {
      if (text !== undefined) return fixed({ text });
      if (blob !== undefined) return fixed({ blob });
      const produced = await (read as NonNullable<ResourceOptions['read']>)();
      return typeof produced === 'string' ? fixed({ text: produced }) : checkContents(uri, produced);
    },
  };
}

/**
 * Define a resource template — for MCP's `resources/templates/list`, `resources/read` of any URI it
 * matches, and `completion/complete` of its variables.
 *
 * Variables are `{name}` (one path segment: it cannot span a `/`) and `{+name}` (any path). Throws
 * {@link ToolRegistrationError} (`INVALID_DEFINITION`) for another operator (`{?query}`, `{#frag}`),
 * a repeated or missing variable, or a `read` that is not a function.
 *
 * @example
 * ```ts
 * import { defineResourceTemplate } from 'toolshed';
 *
 * const page = defineResourceTemplate({
 *   uriTemplate: 'docs://pages/{slug}',
 *   name: 'page',
 *   read: ({ slug }) => `The page ${slug}.`,
 *   complete: { slug: ['intro', 'install'] },
 * });
 * const [contents] = await page.read('docs://pages/intro');
 * // contents → { uri: 'docs://pages/intro', text: 'The page intro.' }
 * ```
 */
export function defineResourceTemplate(options: ResourceTemplateOptions): ResourceTemplateSpec {
  if (!isPlainObject(options)) {
    throw invalid(
      undefined,
      undefined,
      `A resource template definition must be an object, got ${describeValue(options)}.`,
    );
  }
  const uriTemplate = checkUri(options.uriTemplate, 'uriTemplate', 'Resource template');
  const name = checkName(uriTemplate, options.name);
  const variables: string[] = [];
  let pattern = '';
  let rest = uriTemplate;
  for (;;) {
    const open = rest.indexOf('{');
    if (open === -1) break;
    const close = rest.indexOf('}', open);
    const inside = close === -1 ? '' : rest.slice(open + 1, close);
    // `{+name}` (RFC 6570 reserved expansion) may span path segments: a file path.
    const reserved = inside.startsWith('+');
    const variable = reserved ? inside.slice(1) : inside;
    if (!/^[A-Za-z0-9_]+$/.test(variable)) {
      throw invalid(
        uriTemplate,
        'uriTemplate',
        `Resource template '${uriTemplate}': '{${inside}' is not a {name} or {+name} variable; only those are supported ({name} is one path segment, {+name} any path).`,
      );
    }
    if (variables.includes(variable)) {
      throw invalid(
        uriTemplate,
        'uriTemplate',
        `Resource template '${uriTemplate}' uses the variable '${variable}' twice.`,
      );
    }
    variables.push(variable);
    pattern += `${escapeRegExp(rest.slice(0, open))}${reserved ? '([^?#]+)' : '([^/?#]+)'}`;
    rest = rest.slice(close + 1);
  }
  if (rest.includes('}')) {
    throw invalid(uriTemplate, 'uriTemplate', `Resource template '${uriTemplate}' has a '}' without its '{'.`);
  }
  if (variables.length === 0) {
    throw invalid(
      uriTemplate,
      'uriTemplate',
      `Resource template '${uriTemplate}' has no {variable}; define a resource instead.`,
    );
  }
  const matcher = new RegExp(`^${pattern}${escapeRegExp(rest)}$`);
  const read = options.read;
  if (typeof read !== 'function') {
    throw invalid(
      uriTemplate,
      'read',
      `Resource template '${uriTemplate}': read must be a function, got ${describeValue(read)}.`,
    );
  }
  const completions = options.complete ?? {};
  if (!isPlainObject(completions)) {
    throw invalid(
      uriTemplate,
      'complete',
      `Resource template '${uriTemplate}': complete must be an object of variables, got ${describeValue(completions)}.`,
    );
  }
  for (const key of Object.keys(completions)) {
    if (!variables.includes(key)) {
      throw invalid(
        uriTemplate,
        `complete.${key}`,
        `Resource template '${uriTemplate}' has no variable '${key}' to complete; its variables: ${variables.join(', ')}.`,
      );
    }
  }
  const mimeType = options.mimeType;
  const template: ResourceTemplateSpec = {
    uriTemplate,
    name,
    ...optionalFields(options),
    variables,
    match(uri) {
      if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH) return undefined;
      const found = matcher.exec(uri);
      if (found === null) return undefined;
      const values: Record<string, string> = {};
      for (const [index, variable] of variables.entries()) {
        const raw = found[index + 1] as string;
        try {
          values[variable] = decodeURIComponent(raw);
        } catch {
          return undefined;
        }
      }
      return values;
    },
    async read(uri) {
      const values = template.match(uri);
      if (values === undefined) throw new TypeError(`Resource template '${uriTemplate}' does not match '${uri}'.`);
      const produced = await read(values, uri);
      if (typeof produced === 'string') {
        return [{ uri, ...(mimeType === undefined ? {} : { mimeType }), text: produced }];
      }
      return checkContents(uri, produced);
    },
    async complete(variable, value) {
      if (!Object.hasOwn(completions, variable)) return [];
      const source = completions[variable];
      const candidates = typeof source === 'function' ? await source(value) : (source ?? []);
      return matching(candidates, value);
    },
  };
  return template;
}

function checkUri(value: unknown, field: string, what: string): string {
  if (typeof value !== 'string' || value.length > MAX_URI_LENGTH || !/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value)) {
    throw invalid(
      typeof value === 'string' ? value : undefined,
      field,
      `${what} ${field} ${describeValue(value)} is invalid: use a URI with a scheme and no spaces (docs://guide), at most ${MAX_URI_LENGTH} characters.`,
    );
  }
  return value;
}

function checkName(uri: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid(uri, 'name', `Resource '${uri}' needs a non-empty name, got ${describeValue(value)}.`);
  }
  return value;
}

function optionalFields(
  options: ResourceOptionsBase,
): Partial<Pick<ResourceSpec, 'title' | 'description' | 'mimeType' | 'metadata'>> {
  return {
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.mimeType === undefined ? {} : { mimeType: options.mimeType }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
  };
}

function checkContents(uri: string, contents: unknown): ResourceContents[] {
  if (!Array.isArray(contents)) {
    throw new TypeError(`Resource '${uri}' read ${describeValue(contents)} instead of text or a list of contents.`);
  }
  for (const item of contents) {
    if (
      !isPlainObject(item) ||
      typeof item.uri !== 'string' ||
      (typeof item.text !== 'string' && typeof item.blob !== 'string')
    ) {
      throw new TypeError(
        `Resource '${uri}' read a content item without a uri and text or blob: ${describeValue(item)}.`,
      );
    }
  }
  return contents as ResourceContents[];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function invalid(uri: string | undefined, field: string | undefined, message: string): ToolRegistrationError {
  return new ToolRegistrationError('INVALID_DEFINITION', message, {
    ...(uri === undefined ? {} : { toolName: uri }),
    ...(field === undefined ? {} : { field }),
  });
}
