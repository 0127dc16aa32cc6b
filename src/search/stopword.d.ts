// The part of the `stopword` package (which ships no types) that tool search uses.
declare module 'stopword' {
  /** English stop words, lower-case. */
  export const eng: string[];
}
