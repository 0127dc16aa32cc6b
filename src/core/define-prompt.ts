import type { ContentBlock } from './content-block.js';
import { describeValue } from './define-tool.js';
import { ToolRegistrationError } from './errors/tool-registration-error.js';
import { isPlainObject } from './json-schema.js';

/** The pattern every prompt name matches (the tool name pattern, so any client can show it). */
export const PROMPT_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * One argument of a prompt, as MCP lists it. `values` are the suggestions `completion/complete`
 * offers for it (filtered by what the user typed so far).
 *
 * @example
 * ```ts
 * const language: PromptArgument = { name: 'language', description: 'The code language', required: true, values: ['python', 'typescript'] };
 * ```
 */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
  values?: readonly string[];
}

/**
 * One message of a rendered prompt: a role and one content block.
 *
 * @example
 * ```ts
 * const message: PromptMessage = { role: 'user', content: { type: 'text', text: 'Review this diff.' } };
 * ```
 */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

/** What {@link definePrompt} takes. */
export interface PromptOptions {
  /** 1-64 lowercase letters, digits and underscores, starting with a letter. */
  name: string;
  title?: string;
  description: string;
  arguments?: readonly PromptArgument[];
  /**
   * The messages: fixed ones, in whose text (and embedded resource uri and text) `{{argument}}` is
   * replaced by the argument's value, or a function of the arguments.
   */
  messages:
    | readonly PromptMessage[]
    | ((args: Readonly<Record<string, string>>) => PromptMessage[] | Promise<PromptMessage[]>);
  /** Completion of an argument beyond its fixed `values`: the candidates for what was typed so far. */
  complete?: (argument: string, value: string) => readonly string[] | Promise<readonly string[]>;
  /** Free-form data for the host (where the prompt was defined); never sent to clients. */
  metadata?: Record<string, unknown>;
}

/**
 * A prompt as a registry holds it (built by {@link definePrompt}): its listing fields and `render`,
 * which checks the arguments and returns the messages.
 *
 * @example
 * ```ts
 * const messages = await prompt.render({ language: 'python' });
 * ```
 */
export interface PromptSpec {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly arguments: readonly PromptArgument[];
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * The messages for `args`. Throws a `TypeError` naming the problem for a missing required argument,
   * an unknown one or a value that is not a string.
   */
  render(args: Readonly<Record<string, unknown>>): Promise<PromptMessage[]>;
  /** Completion candidates for `argument` starting with `value` (at most 100). */
  complete(argument: string, value: string): Promise<string[]>;
}

const MAX_COMPLETIONS = 100;

/**
 * Define a prompt once — for MCP's `prompts/list` and `prompts/get`, beside the tools of a registry.
 *
 * Throws {@link ToolRegistrationError} (`INVALID_DEFINITION`) for a bad name, an empty description,
 * a malformed or repeated argument, or messages that are neither a list nor a function.
 *
 * @example
 * ```ts
 * import { definePrompt } from 'toolshed';
 *
 * const review = definePrompt({
 *   name: 'code_review',
 *   description: 'Ask for a review of a piece of code.',
 *   arguments: [{ name: 'language', required: true, values: ['python', 'typescript'] }],
 *   messages: [{ role: 'user', content: { type: 'text', text: 'Review this {{language}} code.' } }],
 * });
 * const [message] = await review.render({ language: 'python' });
 * // message.content → { type: 'text', text: 'Review this python code.' }
 * ```
 */
export function definePrompt(options: PromptOptions): PromptSpec {
  if (!isPlainObject(options)) {
    throw invalid(undefined, undefined, `A prompt definition must be an object, got ${describeValue(options)}.`);
  }
  const { name, description } = options;
  if (typeof name !== 'string' || !PROMPT_NAME_PATTERN.test(name)) {
    throw invalid(
      typeof name === 'string' ? name : undefined,
      'name',
      `Prompt name ${describeValue(name)} is invalid: use 1-64 characters of lowercase letters, digits and underscores, starting with a letter (${PROMPT_NAME_PATTERN.source}).`,
    );
  }
  if (typeof description !== 'string' || description.trim() === '') {
    throw invalid(
      name,
      'description',
      `Prompt '${name}' needs a non-empty description, got ${describeValue(description)}.`,
    );
  }
  const args = checkArguments(name, options.arguments ?? []);
  const messages = options.messages;
  if (typeof messages !== 'function' && !Array.isArray(messages)) {
    throw invalid(
      name,
      'messages',
      `Prompt '${name}' needs messages: a list or a function, got ${describeValue(messages)}.`,
    );
  }
  if (Array.isArray(messages)) {
    for (const [index, message] of messages.entries()) checkMessage(name, message, `messages[${index}]`);
  }
  const complete = options.complete;
  const known = new Map(args.map((argument) => [argument.name, argument]));
  return {
    name,
    ...(options.title === undefined ? {} : { title: options.title }),
    description,
    arguments: args,
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
    async render(given) {
      const values = checkGiven(name, args, given);
      if (typeof messages === 'function') {
        const rendered = await messages(values);
        if (!Array.isArray(rendered)) {
          throw new TypeError(`Prompt '${name}' rendered ${describeValue(rendered)} instead of a list of messages.`);
        }
        for (const [index, message] of rendered.entries()) checkMessage(name, message, `messages[${index}]`);
        return rendered;
      }
      return messages.map((message) => ({ role: message.role, content: substitute(message.content, values) }));
    },
    async complete(argument, value) {
      const declared = known.get(argument);
      if (declared === undefined) return [];
      const candidates = [
        ...(declared.values ?? []),
        ...(complete === undefined ? [] : await complete(argument, value)),
      ];
      return matching(candidates, value);
    },
  };
}

/** The candidates that start with `value` (case-insensitively), without repeats, at most 100. */
export function matching(candidates: readonly string[], value: string): string[] {
  const prefix = value.toLowerCase();
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (typeof candidate !== 'string' || !candidate.toLowerCase().startsWith(prefix)) continue;
    seen.add(candidate);
    if (seen.size === MAX_COMPLETIONS) break;
  }
  return [...seen];
}

function checkArguments(name: string, value: unknown): PromptArgument[] {
  if (!Array.isArray(value)) {
    throw invalid(name, 'arguments', `Prompt '${name}': arguments must be a list, got ${describeValue(value)}.`);
  }
  const seen = new Set<string>();
  return value.map((argument, index) => {
    const field = `arguments[${index}]`;
    if (!isPlainObject(argument) || typeof argument.name !== 'string' || argument.name.trim() === '') {
      throw invalid(name, field, `Prompt '${name}': ${field} needs a non-empty name, got ${describeValue(argument)}.`);
    }
    if (seen.has(argument.name)) {
      throw invalid(name, field, `Prompt '${name}' declares the argument '${argument.name}' twice.`);
    }
    seen.add(argument.name);
    const values = argument.values;
    if (values !== undefined && (!Array.isArray(values) || values.some((item) => typeof item !== 'string'))) {
      throw invalid(
        name,
        `${field}.values`,
        `Prompt '${name}': values of '${argument.name}' must be a list of strings, got ${describeValue(values)}.`,
      );
    }
    return { ...(argument as unknown as PromptArgument) };
  });
}

function checkMessage(name: string, message: unknown, field: string): void {
  if (!isPlainObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
    throw invalid(
      name,
      `${field}.role`,
      `Prompt '${name}': ${field} needs the role 'user' or 'assistant', got ${describeValue(isPlainObject(message) ? message.role : message)}.`,
    );
  }
  const content = message.content;
  if (!isPlainObject(content) || typeof content.type !== 'string') {
    throw invalid(
      name,
      `${field}.content`,
      `Prompt '${name}': ${field} needs a content block with a type, got ${describeValue(content)}.`,
    );
  }
}

function checkGiven(
  name: string,
  args: readonly PromptArgument[],
  given: Readonly<Record<string, unknown>> | undefined,
): Record<string, string> {
  const values: Record<string, string> = {};
  const declared = new Set(args.map((argument) => argument.name));
  for (const key of Object.keys(given ?? {})) {
    if (!declared.has(key)) {
      const names = args.map((argument) => argument.name);
      throw new TypeError(
        `Prompt '${name}' has no argument '${key.length > 80 ? `${key.slice(0, 79)}…` : key}'; its arguments: ${names.length === 0 ? 'none' : names.join(', ')}.`,
      );
    }
    const value = (given as Record<string, unknown>)[key];
    if (typeof value !== 'string') {
      throw new TypeError(`Prompt '${name}': argument '${key}' must be a string, got ${describeValue(value)}.`);
    }
    values[key] = value;
  }
  for (const argument of args) {
    if (argument.required === true && !Object.hasOwn(values, argument.name)) {
      throw new TypeError(`Prompt '${name}' needs the argument '${argument.name}'.`);
    }
  }
  return values;
}

function substitute(content: ContentBlock, values: Readonly<Record<string, string>>): ContentBlock {
  const fill = (text: string) =>
    text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (whole, key: string) =>
      Object.hasOwn(values, key) ? (values[key] as string) : whole,
    );
  switch (content.type) {
    case 'text':
      return { ...content, text: fill(content.text) };
    case 'resource':
      return {
        ...content,
        resource: {
          ...content.resource,
          uri: fill(content.resource.uri),
          ...(content.resource.text === undefined ? {} : { text: fill(content.resource.text) }),
        },
      };
    case 'resource_link':
      return { ...content, uri: fill(content.uri) };
    default:
      return content;
  }
}

function invalid(promptName: string | undefined, field: string | undefined, message: string): ToolRegistrationError {
  return new ToolRegistrationError('INVALID_DEFINITION', message, {
    ...(promptName === undefined ? {} : { toolName: promptName }),
    ...(field === undefined ? {} : { field }),
  });
}
