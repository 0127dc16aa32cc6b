// The REST API on SQLite: `toolshed serve` beside a bare Fastify app (bench/lib/rest-bench.js).
import { runCase } from '../lib/case.js';
import { runRestBench } from '../lib/rest-bench.js';

await runCase('rest-sqlite', () => runRestBench('sqlite'));
