/*
The list below is the English list of the `stopword` package (3.1.5), which carries this notice:

Copyright (c) 2011, Chris Umbel

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in
all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
THE SOFTWARE.
*/

/**
 * The English stop words tool search leaves out of queries and tool texts: `stopword`'s English
 * list, word for word (a test compares the two). Kept here because the package's only entry point
 * loads the lists of every language it has (237 kB), which cost every CLI start about 25 ms
 * (docs/decisions/017-stop-words-in-the-source.md).
 *
 * @example
 * ```ts
 * const stopWords = new Set(ENGLISH_STOP_WORDS);
 * stopWords.has('the'); // true
 * ```
 */
export const ENGLISH_STOP_WORDS: readonly string[] = (
  'about after all also am an and another any are as at be because been before being between both ' +
  'but by came can come could did do each for from get got has had he have her here him himself ' +
  'his how if in into is it like make many me might more most much must my never now of on only or ' +
  'other our out over said same should since some still such take than that the their them then ' +
  'there these they this those through to too under up very was way we well were what where which ' +
  'while who with would you your a i'
).split(' ');
