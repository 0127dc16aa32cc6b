/** Count the words of `text`. */
export function wordCount({ text }) {
  const words = text.split(/\s+/).filter((word) => word !== '');
  return { words: words.length };
}

/** Repeat `text` back. */
export function echo({ text }) {
  return text;
}

/** `text` in capitals, reporting progress through the context. */
export async function shout({ text }, context) {
  context.progress(1, 1, 'shouted');
  return text.toUpperCase();
}
