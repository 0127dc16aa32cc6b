/** One way in which a value fails its schema, located by a JSON path. */
export interface ValidationIssue {
  /** Where the problem is, as `a.b[2].c` (empty for the value itself). */
  path: string;
  /** The same place as a JSON Pointer (`/a/b/2/c`), for tools that map it back to a source file. */
  pointer: string;
  /** The JSON Schema keyword that failed (`type`, `required`, `enum`, ...). */
  keyword: string;
  /** What was expected, in words (`a number`, `one of "c", "f"`). */
  expected: string;
  /** The offending value, when there is one (absent for a missing property). */
  received?: unknown;
  /** The whole phrase: `'a' must be a number, got string "1"`. */
  message: string;
}

/**
 * A validator: `undefined` when `value` is valid (defaults applied in place), else the issues found.
 */
export type CompiledValidator = (value: unknown) => ValidationIssue[] | undefined;
