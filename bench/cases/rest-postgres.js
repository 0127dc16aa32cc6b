// The REST API on PostgreSQL (a throwaway database on 127.0.0.1:5432): `toolshed serve` beside a
// bare Fastify app (bench/lib/rest-bench.js).
import { runCase } from '../lib/case.js';
import { runRestBench } from '../lib/rest-bench.js';

await runCase('rest-postgres', () => runRestBench('postgres'));
