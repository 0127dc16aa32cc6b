// Loaded with `node --import` before the conformance suite. The suite imports `globSync` from `fs`,
// which Node gained in 22; on older Node its `fs` import is pointed at a module that adds one.
import { register } from 'node:module';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) register('./fs-hook.mjs', import.meta.url);
