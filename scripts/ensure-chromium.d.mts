/** Types of `ensure-chromium.mjs`, for the TypeScript tests that import it. */

/** Where the browser tests expect Chromium. */
export declare const CHROMIUM_PATH: string;

/** The flags of every browser the tests and the bench start. */
export declare const CHROMIUM_ARGS: readonly string[];

/** Return the Chromium executable path, installing it with apt-get first when it is missing. */
export declare function ensureChromium(options?: { log?: (line: string) => void }): string;
