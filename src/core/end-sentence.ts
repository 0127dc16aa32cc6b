/**
 * `text` as a sentence: a full stop added unless it already ends with one, a question mark or an
 * exclamation mark (a message that ends with "did you mean 'x'?" needs no full stop after it).
 *
 * @example
 * ```ts
 * endSentence("'a' must be a number"); // "'a' must be a number."
 * endSentence('got "strnig"; did you mean "string"?'); // unchanged
 * ```
 */
export function endSentence(text: string): string {
  return /[.?!]$/.test(text) ? text : `${text}.`;
}
