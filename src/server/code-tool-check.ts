import { Script } from 'node:vm';
import type { Sandbox, SandboxLanguage, SandboxRunResult } from '../sandbox/sandbox.js';
import { ApiError, validationError } from './api-error.js';

/** What {@link checkCodeTool} checks. */
export interface CodeToolSource {
  type: SandboxLanguage;
  /** The tool's id: the name of the function the code must define. */
  id: string;
  code: string;
}

/** Python's keywords: no function can have these names. */
const PYTHON_RESERVED: ReadonlySet<string> = new Set(
  'and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/**
 * JavaScript's reserved words, and the names a JavaScript global resolves without a definition
 * (`eval`, `escape`, `unescape`, `undefined`, `console`, and `constructor` through Object.prototype),
 * which would make a code that defines nothing look as if it did.
 */
const JAVASCRIPT_RESERVED: ReadonlySet<string> = new Set(
  'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await arguments constructor eval escape unescape undefined console'.split(
    ' ',
  ),
);

const DISPLAY_NAMES: Readonly<Record<SandboxLanguage, string>> = { python: 'Python', javascript: 'JavaScript' };

/**
 * Refuse a code tool that cannot work, before it is stored: an id no function can have, a syntax
 * error (with its line), a top level that fails, or no function named like the tool. Throws an
 * {@link ApiError}: 400 `VALIDATION_ERROR` with `details.field` `id` or `code`; 503 `UNAVAILABLE`
 * when the sandbox cannot start; 429 `RATE_LIMITED` when it is busy.
 *
 * JavaScript is parsed on the host without running (`node:vm`'s `Script` compiles only); Python is
 * compiled inside the sandbox, never on the host. When the code compiles, its top level runs once in
 * the sandbox (the function is not called), which is what finds the function, an import the sandbox
 * refuses, or a top level that raises or never ends.
 *
 * @example
 * ```ts
 * await checkCodeTool(pool.forTenant('acme'), { type: 'javascript', id: 'add', code: 'function add({ a, b }) { return a + b; }' });
 * ```
 */
export async function checkCodeTool(
  sandbox: Sandbox,
  source: CodeToolSource,
  change: 'created' | 'changed' = 'created',
): Promise<void> {
  const { type, id, code } = source;
  const language = DISPLAY_NAMES[type];
  const reserved = type === 'python' ? PYTHON_RESERVED : JAVASCRIPT_RESERVED;
  if (reserved.has(id)) {
    throw validationError(
      'id',
      `'${id}' cannot name a ${language} function (a reserved word or built-in of ${language}), and a code tool's function is named like its id; choose another id.`,
    );
  }
  if (type === 'javascript') parseJavascript(code);
  const outcome = await sandbox.run(
    type === 'python' ? pythonCheckProgram(id, code) : javascriptCheckProgram(id, code),
  );
  const verdict = verdictOf(outcome, language, change);
  switch (verdict[0]) {
    case 'ok':
      return;
    case 'syntax': {
      const [, message, line] = verdict;
      throw codeError(`'code' has a ${language} syntax error${onLine(line)}: ${sentence(message)}`);
    }
    case 'raised': {
      const [, errorType, message, line] = verdict;
      throw codeError(
        `'code' raised ${errorType}${onLine(line)} when its top level ran: ${sentence(message)} The top level runs once when the tool is created, to find '${id}', and before every call; it must not fail.`,
      );
    }
    case 'missing':
      throw codeError(
        `'code' does not define a function named '${id}'; a code tool calls the function named like its id, so add ${type === 'python' ? `'def ${id}(...):'` : `'function ${id}(args) { ... }'`} at the top level.`,
      );
    case 'not_function':
      throw codeError(
        `'code' defines '${id}' as ${verdict[1]}, not a function; a code tool calls the function named like its id.`,
      );
    case 'async':
      throw codeError(
        `'${id}' is an async function; Python code tools call it without an event loop, so define it with 'def'.`,
      );
    default:
      throw codeError(`The check of 'code' answered ${JSON.stringify(verdict)}.`);
  }
}

function codeError(message: string): ApiError {
  return validationError('code', message);
}

function onLine(line: unknown): string {
  return typeof line === 'number' ? ` on line ${line}` : '';
}

function sentence(text: unknown): string {
  const value = typeof text === 'string' && text.trim() !== '' ? text.trim() : 'no message';
  return /[.!?]$/.test(value) ? value : `${value}.`;
}

/** Parse without running: a SyntaxError names its line in the first line of its stack. */
function parseJavascript(code: string): void {
  try {
    new Script(code, { filename: 'code.js' });
  } catch (error) {
    if (error instanceof SyntaxError) {
      const line = /^code\.js:(\d+)/.exec(error.stack ?? '')?.[1];
      throw codeError(
        `'code' has a JavaScript syntax error${onLine(line === undefined ? undefined : Number(line))}: ${sentence(error.message)}`,
      );
    }
    if (error instanceof RangeError) {
      throw codeError(`'code' is nested too deeply to parse (${error.message}); write it with less nesting.`);
    }
    throw error;
  }
}

/**
 * In Python: compile the code (a syntax error is the answer), run its top level in a namespace of its
 * own, and look for the function. The answer is a list, as the sandbox returns it.
 */
function pythonCheckProgram(id: string, code: string): string {
  return `_toolshed_source = ${JSON.stringify(code)}
def _toolshed_check():
    try:
        code = compile(_toolshed_source, '<tool>', 'exec')
    except (SyntaxError, ValueError) as error:
        return ['syntax', getattr(error, 'msg', None) or str(error), getattr(error, 'lineno', None)]
    namespace = {'__name__': '__main__', '__builtins__': __builtins__}
    try:
        exec(code, namespace)
    except BaseException as error:
        line = None
        frame = error.__traceback__
        while frame is not None:
            if frame.tb_frame.f_code.co_filename == '<tool>':
                line = frame.tb_lineno
            frame = frame.tb_next
        try:
            message = str(error)[:1000]
        except BaseException:
            message = ''
        return ['raised', type(error).__name__, message, line]
    if ${JSON.stringify(id)} not in namespace:
        return ['missing']
    function = namespace[${JSON.stringify(id)}]
    if not callable(function):
        return ['not_function', 'a ' + type(function).__name__]
    # CO_COROUTINE | CO_ASYNC_GENERATOR
    if getattr(getattr(function, '__code__', None), 'co_flags', 0) & 0x280:
        return ['async']
    return ['ok']
_toolshed_check()
`;
}

/** In JavaScript (already parsed on the host): run the top level, then say what the name is. */
function javascriptCheckProgram(id: string, code: string): string {
  return `${code}\n;typeof ${id} === 'function' && /^class\\b/.test(Function.prototype.toString.call(${id})) ? 'class' : typeof ${id}\n`;
}

/** The check's answer, from the sandbox's outcome. */
function verdictOf(outcome: SandboxRunResult, language: string, change: 'created' | 'changed'): unknown[] {
  if (outcome.ok) {
    const result = outcome.result;
    if (language === 'JavaScript') {
      if (result === 'function') return ['ok'];
      if (result === 'undefined') return ['missing'];
      // A class is a function to typeof, but a call without `new` throws.
      if (result === 'class') return ['not_function', 'a class'];
      return ['not_function', `a ${String(result)}`];
    }
    return Array.isArray(result) ? result : ['unexpected', result];
  }
  switch (outcome.reason) {
    case 'exception':
      return [
        'raised',
        outcome.errorType ?? 'an error',
        outcome.message.replace(/^\w+ (raised|threw) \w+: /, '').replace(/ \(line \d+\)\.$/, ''),
        outcome.line,
      ];
    case 'timeout':
    case 'memory':
    case 'crashed':
      throw codeError(
        `${outcome.message.replace(/\.$/, '')}, at the top level of 'code', which runs once when the tool is ${change}; the tool was not ${change}.`,
      );
    case 'busy':
      throw new ApiError(429, 'RATE_LIMITED', `${outcome.message} The tool was not ${change}; send it again shortly.`);
    case 'unavailable':
    case 'cancelled':
      throw new ApiError(
        503,
        'UNAVAILABLE',
        `The ${language} sandbox could not check the code: ${outcome.message} The tool was not ${change}.`,
      );
    default: {
      const unreachable: never = outcome.reason;
      return unreachable;
    }
  }
}
