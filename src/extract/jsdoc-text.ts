/**
 * JSDoc text as one line: runs of white space (line breaks and the indentation of continued lines)
 * become single spaces, and a TSDoc hyphen before a `@param` description is dropped.
 *
 * @example
 * ```ts
 * jsdocText('- Maximum number\n  of results.'); // 'Maximum number of results.'
 * ```
 */
export function jsdocText(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const line = text.replace(/\s+/g, ' ').trim().replace(/^-\s*/, '');
  return line === '' ? undefined : line;
}

/**
 * The summary of a JSDoc comment: its first paragraph (up to the first blank line), as one line.
 *
 * @example
 * ```ts
 * jsdocSummary('Search the mailbox.\n\nUses the full-text index.'); // 'Search the mailbox.'
 * ```
 */
export function jsdocSummary(text: string): string | undefined {
  const [first] = text.trim().split(/\n[ \t]*\n/);
  return jsdocText(first);
}
