/**
 * How a REST tool authenticates: a bearer token, a header or a query parameter, whose value comes
 * either from the server's environment (`token_env` / `value_env`: operator config files only) or from
 * a workspace secret (`secret`: tools created through the service API only).
 *
 * @example
 * ```ts
 * const auth: RestToolAuth = { type: 'header', name: 'X-Api-Key', secret: 'COMPANY_API_KEY' };
 * ```
 */
export type RestToolAuth =
  | { type: 'bearer'; token_env: string }
  | { type: 'bearer'; secret: string }
  | { type: 'header'; name: string; value_env: string }
  | { type: 'header'; name: string; secret: string }
  | { type: 'query'; name: string; value_env: string }
  | { type: 'query'; name: string; secret: string };

/** A REST tool under `custom_tools:` (SPEC §5.3), as written (snake_case keys, timeout in seconds). */
export interface RestToolConfig {
  id: string;
  type: 'rest_api';
  title?: string;
  description: string;
  when_to_use?: string;
  category?: string;
  tags?: string[];
  /** Example arguments (at most 10), each valid against `parameters`. */
  input_examples?: Array<Record<string, unknown>>;
  endpoint: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  auth?: RestToolAuth;
  parameters: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  request?: { body?: unknown; query?: Record<string, string>; headers?: Record<string, string> };
  response?: { path?: string };
  timeout?: number;
  max_response_bytes?: number;
  allow_private_network?: boolean;
  annotations?: { read_only?: boolean; destructive?: boolean; idempotent?: boolean; open_world?: boolean };
  requires_approval?: boolean;
  /** Whether calls may run as MCP tasks (`task_support`: `forbidden`, `optional` or `required`). */
  execution?: { task_support?: 'forbidden' | 'optional' | 'required' };
  cli?: string | null;
}

/**
 * The environment variables a REST tool needs: its auth's variable (`token_env` / `value_env`). A tool
 * whose auth is a workspace secret needs none.
 *
 * @example
 * ```ts
 * restToolRequirements({ auth: { type: 'bearer', token_env: 'COMPANY_API_TOKEN' } } as RestToolConfig);
 * // [{ name: 'COMPANY_API_TOKEN', description: 'bearer token for my_company_api' }]
 * ```
 */
export function restToolRequirements(tool: RestToolConfig): Array<{ name: string; description?: string }> {
  const auth = tool.auth;
  const variable = auth === undefined ? undefined : authVariable(auth);
  if (auth === undefined || variable === undefined) return [];
  return [{ name: variable, description: `${authDescription(auth)} for ${tool.id}` }];
}

/**
 * The environment variable an auth reads (`token_env` or `value_env`), or `undefined` for a workspace
 * secret.
 *
 * @example
 * ```ts
 * authVariable({ type: 'header', name: 'X-Api-Key', value_env: 'COMPANY_API_KEY' }); // 'COMPANY_API_KEY'
 * authVariable({ type: 'bearer', secret: 'COMPANY_API_KEY' }); // undefined
 * ```
 */
export function authVariable(auth: RestToolAuth): string | undefined {
  if ('token_env' in auth) return auth.token_env;
  if ('value_env' in auth) return auth.value_env;
  return undefined;
}

/**
 * The workspace secret an auth names (`secret`), or `undefined` for an environment variable.
 *
 * @example
 * ```ts
 * authSecretName({ type: 'bearer', secret: 'COMPANY_API_KEY' }); // 'COMPANY_API_KEY'
 * ```
 */
export function authSecretName(auth: RestToolAuth): string | undefined {
  return 'secret' in auth ? auth.secret : undefined;
}

/**
 * What an auth's value is, in words: `bearer token`, `header X-Api-Key`, `query parameter key`.
 *
 * @example
 * ```ts
 * authDescription({ type: 'query', name: 'key', secret: 'MAPS_KEY' }); // 'query parameter key'
 * ```
 */
export function authDescription(auth: RestToolAuth): string {
  switch (auth.type) {
    case 'bearer':
      return 'bearer token';
    case 'header':
      return `header ${auth.name}`;
    case 'query':
      return `query parameter ${auth.name}`;
    default: {
      const unreachable: never = auth;
      return unreachable;
    }
  }
}

/**
 * A `custom_tools` entry of a configuration file whose auth names a workspace secret.
 *
 * @example
 * ```ts
 * const [reference]: WorkspaceSecretReference[] = workspaceSecretReferences(raw.custom_tools);
 * ```
 */
export interface WorkspaceSecretReference {
  /** JSON Pointer of the `secret` key (`/custom_tools/0/auth/secret`). */
  pointer: string;
  /** JSON Pointer of the entry's `auth`, whose other findings it replaces. */
  authPointer: string;
  /** The entry's id as written (`?` when it has none). */
  tool: string;
}

/**
 * The `custom_tools` entries of a configuration (as parsed, before anything else) whose `auth` has a
 * `secret`: a configuration file has no workspace, so such an entry is refused.
 *
 * @example
 * ```ts
 * workspaceSecretReferences([{ id: 'crm', auth: { type: 'bearer', secret: 'CRM_TOKEN' } }]);
 * // [{ pointer: '/custom_tools/0/auth/secret', authPointer: '/custom_tools/0/auth', tool: 'crm' }]
 * ```
 */
export function workspaceSecretReferences(customTools: unknown): WorkspaceSecretReference[] {
  if (!Array.isArray(customTools)) return [];
  return customTools.flatMap((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null) return [];
    const auth = (entry as Record<string, unknown>).auth;
    if (typeof auth !== 'object' || auth === null || !Object.hasOwn(auth, 'secret')) return [];
    const id = (entry as Record<string, unknown>).id;
    const authPointer = `/custom_tools/${index}/auth`;
    return [{ pointer: `${authPointer}/secret`, authPointer, tool: typeof id === 'string' ? id : '?' }];
  });
}
