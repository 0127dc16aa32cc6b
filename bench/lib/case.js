/**
 * What every bench case shares: running its body, checking the path under test really works, and
 * printing the one JSON line the orchestrator reads.
 */

/**
 * Throw when `condition` is false: a path that fails or skips validation must not be timed.
 *
 * @param {unknown} condition
 * @param {string} message what went wrong, quoting the value seen
 * @returns {asserts condition}
 */
export function check(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * Run a case body and print its figures as one JSON line on stdout, `{ "case": name, "ok": true, ... }`;
 * on failure print `{ "case": name, "ok": false, "error": message }` and exit with status 1.
 *
 * @param {string} name the case's id
 * @param {() => Promise<Record<string, unknown>>} body measures and returns the figures
 * @returns {Promise<void>}
 */
export async function runCase(name, body) {
  let line;
  try {
    line = { case: name, ok: true, ...(await body()) };
  } catch (error) {
    line = { case: name, ok: false, error: firstLine(error instanceof Error ? error.message : String(error)) };
    process.exitCode = 1;
  }
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/**
 * The first line of `text` (with the line after it when the first ends in a colon, as a failed
 * directory load's list of causes does), at most `limit` characters: enough for a table cell.
 *
 * @param {string} text
 * @param {number} [limit]
 * @returns {string}
 */
export function firstLine(text, limit = 200) {
  const [first = '', second] = text.trim().split('\n');
  const line = first.endsWith(':') && second !== undefined ? `${first} ${second.trim()}` : first;
  return line.length > limit ? `${line.slice(0, limit - 3)}...` : line;
}
