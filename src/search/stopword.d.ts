// The part of the `stopword` package (which ships no types) that english-stop-words.test.ts compares with.
declare module 'stopword' {
  /** English stop words, lower-case. */
  export const eng: string[];
}
