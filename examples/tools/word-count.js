/**
 * The handler of word_count.yaml. `context.config` is the per-tool config of the calling agent
 * (`agents[].config.word_count` in toolshed.yaml): `top` says how many frequent words to list.
 */
export function wordCount({ text, ignore_case }, context) {
  const top = Number.isInteger(context.config?.top) ? context.config.top : 5;
  const words = text.match(/[\p{L}\p{N}'’-]+/gu) ?? [];
  const counts = new Map();
  for (const word of words) {
    const key = ignore_case ? word.toLowerCase() : word;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const frequent = [...counts]
    .sort((left, right) => right[1] - left[1] || (left[0] < right[0] ? -1 : 1))
    .slice(0, top)
    .map(([word, count]) => ({ word, count }));
  return {
    words: words.length,
    lines: text === '' ? 0 : text.split('\n').length,
    characters: [...text].length,
    frequent,
  };
}
