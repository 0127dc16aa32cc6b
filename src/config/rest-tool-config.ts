/** A REST tool under `custom_tools:` (SPEC §5.3), as written (snake_case keys, timeout in seconds). */
export interface RestToolConfig {
  id: string;
  type: 'rest_api';
  title?: string;
  description: string;
  when_to_use?: string;
  category?: string;
  tags?: string[];
  endpoint: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  auth?:
    | { type: 'bearer'; token_env: string }
    | { type: 'header'; name: string; value_env: string }
    | { type: 'query'; name: string; value_env: string };
  parameters: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  request?: { body?: unknown; query?: Record<string, string>; headers?: Record<string, string> };
  response?: { path?: string };
  timeout?: number;
  max_response_bytes?: number;
  allow_private_network?: boolean;
  annotations?: { read_only?: boolean; destructive?: boolean; idempotent?: boolean; open_world?: boolean };
  requires_approval?: boolean;
  cli?: string | null;
}

/**
 * The environment variables a REST tool needs: its auth secret's variable.
 *
 * @example
 * ```ts
 * restToolRequirements({ auth: { type: 'bearer', token_env: 'COMPANY_API_TOKEN' } } as RestToolConfig);
 * // [{ name: 'COMPANY_API_TOKEN', description: 'bearer token for my_company_api' }]
 * ```
 */
export function restToolRequirements(tool: RestToolConfig): Array<{ name: string; description?: string }> {
  const auth = tool.auth;
  if (auth === undefined) return [];
  const variable = auth.type === 'bearer' ? auth.token_env : auth.value_env;
  const what =
    auth.type === 'bearer' ? 'bearer token' : `${auth.type === 'header' ? 'header' : 'query parameter'} ${auth.name}`;
  return [{ name: variable, description: `${what} for ${tool.id}` }];
}
