/** Handlers for the definitions in this folder that reach handler resolution. */
export function readFile({ path }) {
  return path;
}

export function writeFile({ path }) {
  return path;
}

export const limits = { maxBytes: 1024 };
