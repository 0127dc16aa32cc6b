import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { checkJsonValue, describeJsonLimitBreach, INPUT_LIMITS } from '../core/input-limits.js';
import { pointerSegments } from '../core/json-pointer.js';

/** A 1-based line and column in a source file. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** YAML text parsed to plain data, with a way back from a JSON Pointer to where it was written. */
export interface YamlSource {
  /** The parsed value (`undefined` when there was a syntax error). */
  value: unknown;
  /**
   * The first syntax error, if any, with its position; `overLimit` when the document is well-formed
   * but over a limit of `INPUT_LIMITS` (or has a refused key).
   */
  syntaxError?: { message: string; position?: SourcePosition; overLimit?: true };
  /** Where the node at `pointer` (`/agents/0/tools/2`) starts; the nearest existing parent otherwise. */
  locate(pointer: string): SourcePosition | undefined;
}

const TOO_DEEP = `the document is nested too deeply to read (limit: depth ${INPUT_LIMITS.depth})`;

/**
 * Parse YAML keeping positions, so later checks can report `file:line:col` for any field. Duplicate
 * keys are syntax errors; aliases are capped (a "billion laughs" file cannot blow up memory); the
 * parsed value is held to `INPUT_LIMITS` (nesting depth, string, list and object sizes, no
 * `__proto__` key), a breach reported as a syntax error at the node it names.
 *
 * @example
 * ```ts
 * const source = parseYamlSource('name: x\ntimeout: 0\n');
 * source.locate('/timeout'); // { line: 2, column: 1 }
 * ```
 */
export function parseYamlSource(text: string): YamlSource {
  const lineCounter = new LineCounter();
  let document: ReturnType<typeof parseDocument>;
  try {
    document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: true });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return {
      value: undefined,
      syntaxError: { message: TOO_DEEP, position: { line: 1, column: 1 }, overLimit: true },
      locate: () => undefined,
    };
  }
  const locate = (pointer: string): SourcePosition | undefined => {
    const offset = offsetOf(document.contents, pointer);
    // An empty document has no nodes: point at its start.
    if (offset === undefined) return { line: 1, column: 1 };
    const position = lineCounter.linePos(offset);
    return { line: position.line, column: position.col };
  };
  const syntax = document.errors[0];
  if (syntax !== undefined) {
    const position = syntax.linePos?.[0];
    return {
      value: undefined,
      syntaxError: {
        // The parser catches its own stack overflow on a document nested thousands of levels deep.
        ...(syntax.message.includes('Maximum call stack size exceeded')
          ? { message: TOO_DEEP, overLimit: true as const }
          : { message: firstLine(syntax.message) }),
        ...(position === undefined ? {} : { position: { line: position.line, column: position.col } }),
      },
      locate,
    };
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    const position = { line: 1, column: 1 };
    const syntaxError =
      error instanceof RangeError
        ? { message: TOO_DEEP, position, overLimit: true as const }
        : { message: firstLine((error as Error).message), position };
    return { value: undefined, syntaxError, locate };
  }
  const breach = checkJsonValue(value);
  if (breach !== undefined) {
    const message = describeJsonLimitBreach('the document', breach).replace(/\.$/, '');
    return { value: undefined, syntaxError: { message, position: { line: 1, column: 1 }, overLimit: true }, locate };
  }
  return { value, locate };
}

function offsetOf(root: unknown, pointer: string): number | undefined {
  let node = root as Node | null | undefined;
  let offset = node?.range?.[0];
  if (pointer === '') return offset;
  for (const segment of pointerSegments(pointer)) {
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => (isScalar(item.key) ? String(item.key.value) : String(item.key)) === segment,
      );
      if (pair === undefined) return offset;
      offset = (pair.key as Node | null)?.range?.[0] ?? offset;
      node = pair.value as Node | null;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)] as Node | undefined;
      if (item === undefined) return offset;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else {
      return offset;
    }
  }
  return offset;
}

function firstLine(message: string): string {
  return message
    .split('\n')[0]!
    .replace(/ at line \d+, column \d+:?$/, '')
    .trim();
}
