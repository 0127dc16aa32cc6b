/**
 * A function name as a tool name: camelCase and PascalCase words joined with `_`, in lowercase;
 * acronyms stay one word.
 *
 * @example
 * ```ts
 * toSnakeCase('searchEmails'); // 'search_emails'
 * toSnakeCase('getHTTPStatus'); // 'get_http_status'
 * ```
 */
export function toSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}
