import type { JsonSchema } from '../core/json-schema.js';

const NAME: JsonSchema = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' };
const ENV_NAME: JsonSchema = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' };
/** Seconds, up to the longest a Node.js timer waits (2 147 483 s, about 24.8 days). */
const SECONDS: JsonSchema = { type: 'number', exclusiveMinimum: 0, maximum: 2_147_483 };
/** An HTTP header name (RFC 9110 token) and a value with no line break or NUL. */
const HEADER_NAME: JsonSchema = { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" };
const HEADER_VALUE: JsonSchema = { type: 'string', pattern: '^[^\\r\\n\\u0000]*$' };
const SECRET_NAME: JsonSchema = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' };

/**
 * One `auth` type: its value from an environment variable (`variable`: operator config files) or from a
 * workspace secret (`secret`: tools created through the service API), exactly one of the two. Which
 * of the two a surface accepts is checked before the schema, with its own message.
 */
function authSchema(type: string, extra: Record<string, JsonSchema>, variable: string): JsonSchema {
  return {
    type: 'object',
    properties: { type: { const: type }, ...extra, [variable]: ENV_NAME, secret: SECRET_NAME },
    required: ['type', ...Object.keys(extra)],
    oneOf: [{ required: [variable] }, { required: ['secret'] }],
    additionalProperties: false,
  };
}

/**
 * The shape of a REST tool (SPEC §5.3): a `custom_tools:` entry, or the body of `POST /api/tools`. Each
 * surface refuses what is not its own before this schema runs: a configuration file refuses
 * `auth.secret` (there is no workspace); the API refuses `token_env`, `value_env` and
 * `allow_private_network` (the server's environment and network are the operator's).
 */
export const REST_TOOL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: NAME,
    type: { const: 'rest_api' },
    title: { type: 'string', minLength: 1 },
    description: { type: 'string', pattern: '\\S' },
    when_to_use: { type: 'string' },
    category: { type: 'string', minLength: 1 },
    tags: { type: 'array', items: { type: 'string' } },
    input_examples: { type: 'array', maxItems: 10, items: { type: 'object' } },
    endpoint: { type: 'string', pattern: '^https?://' },
    method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
    auth: {
      type: 'object',
      discriminator: { propertyName: 'type' },
      required: ['type'],
      oneOf: [
        authSchema('bearer', {}, 'token_env'),
        authSchema('header', { name: HEADER_NAME }, 'value_env'),
        authSchema('query', { name: { type: 'string', minLength: 1 } }, 'value_env'),
      ],
    },
    parameters: {
      type: 'object',
      properties: { type: { const: 'object' }, properties: { type: 'object' } },
      required: ['type', 'properties'],
    },
    request: {
      type: 'object',
      properties: {
        body: {},
        query: { type: 'object', additionalProperties: { type: 'string' } },
        headers: { type: 'object', propertyNames: HEADER_NAME, additionalProperties: HEADER_VALUE },
      },
      additionalProperties: false,
    },
    response: {
      type: 'object',
      properties: { path: { type: 'string' } },
      additionalProperties: false,
    },
    timeout: SECONDS,
    max_response_bytes: { type: 'integer', minimum: 1, maximum: 100_000_000 },
    allow_private_network: { type: 'boolean' },
    annotations: {
      type: 'object',
      properties: {
        read_only: { type: 'boolean' },
        destructive: { type: 'boolean' },
        idempotent: { type: 'boolean' },
        open_world: { type: 'boolean' },
      },
      additionalProperties: false,
    },
    execution: {
      type: 'object',
      properties: { task_support: { enum: ['forbidden', 'optional', 'required'] } },
      additionalProperties: false,
    },
    requires_approval: { type: 'boolean' },
    cli: { type: ['string', 'null'] },
  },
  required: ['id', 'type', 'description', 'endpoint', 'parameters'],
  additionalProperties: false,
};

/** An `mcp_servers:` entry: a command to spawn, or a Streamable HTTP URL. */
export const MCP_SERVER_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,31}$' },
    command: { type: 'string', minLength: 1 },
    args: { type: 'array', items: { type: 'string' } },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    cwd: { type: 'string' },
    url: { type: 'string', pattern: '^https?://' },
    headers_env: { type: 'object', additionalProperties: ENV_NAME },
    oauth: {
      type: 'object',
      properties: {
        issuer: { type: 'string', pattern: '^https?://', maxLength: 2048 },
        client_id_env: ENV_NAME,
        client_secret_env: ENV_NAME,
        scope: { type: 'string', minLength: 1, maxLength: 1000 },
      },
      required: ['issuer', 'client_id_env', 'client_secret_env'],
      additionalProperties: false,
    },
    timeout: SECONDS,
  },
  required: ['name'],
  additionalProperties: false,
};

const URI: JsonSchema = { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9+.-]*:\\S+$', maxLength: 2048 };
const MIME_TYPE: JsonSchema = {
  type: 'string',
  pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+',
  maxLength: 200,
};
const BASE64: JsonSchema = {
  type: 'string',
  pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
};

/**
 * One message of a `prompts:` entry: a role and exactly one of text, image and resource (checked after
 * the schema, with a message that names what was given).
 */
const PROMPT_MESSAGE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    role: { enum: ['user', 'assistant'] },
    text: { type: 'string' },
    image: {
      type: 'object',
      properties: { data: BASE64, mime_type: MIME_TYPE },
      required: ['data', 'mime_type'],
      additionalProperties: false,
    },
    resource: {
      type: 'object',
      properties: {
        uri: { type: 'string', minLength: 1, maxLength: 2048 },
        mime_type: MIME_TYPE,
        text: { type: 'string' },
      },
      required: ['uri', 'text'],
      additionalProperties: false,
    },
  },
  required: ['role'],
  additionalProperties: false,
};

/** A `prompts:` entry (MCP `prompts/list` and `prompts/get`); `{{argument}}` in texts takes its value. */
export const PROMPT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    name: NAME,
    title: { type: 'string', minLength: 1 },
    description: { type: 'string', pattern: '\\S' },
    arguments: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
          title: { type: 'string' },
          description: { type: 'string' },
          required: { type: 'boolean' },
          values: { type: 'array', maxItems: 1000, items: { type: 'string' } },
        },
        required: ['name'],
        additionalProperties: false,
      },
    },
    messages: { type: 'array', minItems: 1, maxItems: 100, items: PROMPT_MESSAGE_SCHEMA },
  },
  required: ['name', 'description', 'messages'],
  additionalProperties: false,
};

/**
 * A `resources:` entry: a resource at `uri` with fixed `text` or base64 `blob`, or a template at
 * `uri_template` whose `text` takes each `{{variable}}` (exactly one of each pair, checked after the
 * schema).
 */
export const RESOURCE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    uri: URI,
    uri_template: URI,
    name: { type: 'string', minLength: 1, maxLength: 200 },
    title: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    mime_type: MIME_TYPE,
    text: { type: 'string' },
    blob: BASE64,
    complete: { type: 'object', additionalProperties: { type: 'array', maxItems: 1000, items: { type: 'string' } } },
    subscribable: { type: 'boolean' },
  },
  required: ['name'],
  additionalProperties: false,
};

/** Keys an agent (node) entry may have; others are reported as warnings (the seed ADR adds its own). */
export const AGENT_KEYS = [
  'id',
  'name',
  'description',
  'prompt',
  'tools',
  'outputs',
  'output_schema',
  'model',
  'config',
  'prompts',
  'resources',
];

const AGENT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' },
    name: { type: 'string' },
    description: { type: 'string' },
    prompt: { type: 'string' },
    tools: { type: 'array', items: { type: 'string', minLength: 1 } },
    config: { type: 'object', additionalProperties: { type: 'object' } },
    prompts: { type: 'array', items: NAME },
    resources: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 2048 } },
  },
  required: ['id'],
};

/** A duration: a whole number and a unit, `ms`, `s`, `m`, `h` or `d` (`30d`, `12h`). */
export const DURATION: JsonSchema = { type: 'string', pattern: '^[1-9][0-9]{0,8}(ms|s|m|h|d)$' };

/** A `server.limits:` entry: a rate limit and/or concurrency cap for the served workspace. */
export const CALL_LIMIT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    scope: { enum: ['workspace', 'token', 'agent', 'tool'] },
    target: { type: 'string', minLength: 1, maxLength: 200 },
    calls_per_minute: { type: 'number', minimum: 0.001, maximum: 1_000_000 },
    burst: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    max_concurrent: { type: 'integer', minimum: 1, maximum: 1_000_000 },
  },
  required: ['scope'],
  additionalProperties: false,
};

const CLAIM_NAME: JsonSchema = { type: 'string', minLength: 1, maxLength: 200 };

/**
 * `server.oauth:` — the external OAuth 2.1 authorization server whose access tokens (JWTs) `/mcp`
 * accepts beside toolshed's API tokens, and how their claims pick a workspace (and an agent).
 */
export const OAUTH_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    issuer: { type: 'string', pattern: '^https?://', maxLength: 2048 },
    jwks_uri: { type: 'string', pattern: '^https?://', maxLength: 2048 },
    // One resource URL or a list of them (`pattern` applies to a string, `items` to a list).
    audience: {
      type: ['string', 'array'],
      pattern: '^https?://',
      maxLength: 2048,
      minItems: 1,
      maxItems: 100,
      items: { type: 'string', pattern: '^https?://', maxLength: 2048 },
    },
    workspace_claim: CLAIM_NAME,
    agent_claim: CLAIM_NAME,
    workspaces: {
      type: 'object',
      maxProperties: 10_000,
      additionalProperties: { type: 'string', minLength: 1, maxLength: 200 },
    },
  },
  required: ['issuer', 'workspace_claim', 'workspaces'],
  additionalProperties: false,
};

/** The `server:` section: settings of `toolshed serve` (the call log's retention, call limits, OAuth). */
export const SERVER_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    call_log: {
      type: 'object',
      properties: { retention: DURATION },
      additionalProperties: false,
    },
    limits: { type: 'array', items: CALL_LIMIT_SCHEMA, maxItems: 1000 },
    oauth: OAUTH_SCHEMA,
  },
  additionalProperties: false,
};

/** JSON Schema of `toolshed.yaml` (SPEC §5.1). */
export const CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    tools: { type: 'array', items: { type: 'string', minLength: 1 } },
    builtins: { type: 'array', items: { type: 'string', minLength: 1 } },
    workspace: { type: 'string', minLength: 1 },
    custom_tools: { type: 'array', items: REST_TOOL_SCHEMA },
    mcp_servers: { type: 'array', items: MCP_SERVER_SCHEMA },
    prompts: { type: 'array', maxItems: 1000, items: PROMPT_SCHEMA },
    resources: { type: 'array', maxItems: 1000, items: RESOURCE_SCHEMA },
    agents: { type: 'array', items: AGENT_SCHEMA },
    nodes: { type: 'array', items: AGENT_SCHEMA },
    defaults: {
      type: 'object',
      properties: {
        timeout: SECONDS,
        max_output_chars: { type: 'integer', minimum: 1 },
        extra_args: { enum: ['drop', 'reject'] },
      },
      additionalProperties: false,
    },
    server: SERVER_SCHEMA,
  },
  additionalProperties: false,
};
