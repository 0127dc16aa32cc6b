import type { ExportTarget, ExportWarning } from './export-result.js';

/**
 * One change (`rewritten`) or blocker (`unsupported`) found while converting a schema.
 *
 * @example
 * ```ts
 * const issue: SchemaIssue = { kind: 'rewritten', pointer: '/properties/name', message: "'minLength' is not supported; removed" };
 * ```
 */
export interface SchemaIssue {
  readonly kind: 'rewritten' | 'unsupported';
  /** JSON Pointer into the tool's input schema (`''` is the root); `undefined` for the tool itself. */
  readonly pointer: string | undefined;
  readonly message: string;
}

/**
 * Collects what a schema conversion changed or could not express, and turns it into
 * {@link ExportWarning}s: one warning per distinct message, listing every schema path it concerns.
 *
 * @example
 * ```ts
 * const issues = new SchemaIssues();
 * issues.rewritten('/properties/name', "'minLength' is not supported; removed");
 * issues.rewritten('/properties/title', "'minLength' is not supported; removed");
 * issues.toWarnings('create_user', 'gemini');
 * // [{ kind: 'rewritten', message: "'minLength' is not supported; removed (at /properties/name, /properties/title)", ... }]
 * ```
 */
export class SchemaIssues {
  readonly list: SchemaIssue[] = [];

  /** Record a change that keeps the tool usable. */
  rewritten(pointer: string | undefined, message: string): void {
    this.list.push({ kind: 'rewritten', pointer, message });
  }

  /** Record something the target cannot express (a noun phrase: "an open object"): the tool will be left out. */
  unsupported(pointer: string | undefined, message: string): void {
    this.list.push({ kind: 'unsupported', pointer, message });
  }

  /** True once anything unsupported was recorded. */
  get blocked(): boolean {
    return this.list.some((issue) => issue.kind === 'unsupported');
  }

  /** Append every issue of `other` (a subschema converted on its own). */
  absorb(other: SchemaIssues): void {
    this.list.push(...other.list);
  }

  /** The `unsupported` issues as one sentence (empty when there are none). */
  unsupportedSummary(): string {
    return summarize(this.list.filter((issue) => issue.kind === 'unsupported'));
  }

  /** The `rewritten` issues as warnings, one per distinct message. */
  toWarnings(tool: string, target: ExportTarget): ExportWarning[] {
    const byMessage = new Map<string, SchemaIssue[]>();
    for (const issue of this.list) {
      if (issue.kind !== 'rewritten') continue;
      const group = byMessage.get(issue.message);
      if (group === undefined) byMessage.set(issue.message, [issue]);
      else group.push(issue);
    }
    return [...byMessage.values()].map((group) => ({
      tool,
      target,
      kind: 'rewritten',
      message: capitalize(summarize(group)),
    }));
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function summarize(issues: readonly SchemaIssue[]): string {
  const byMessage = new Map<string, string[]>();
  for (const issue of issues) {
    const pointers = byMessage.get(issue.message) ?? [];
    if (issue.pointer !== undefined && !pointers.includes(issue.pointer))
      pointers.push(issue.pointer === '' ? '/' : issue.pointer);
    byMessage.set(issue.message, pointers);
  }
  return [...byMessage]
    .map(([message, pointers]) => (pointers.length === 0 ? message : `${message} (at ${pointers.join(', ')})`))
    .join('; ');
}
