/**
 * The baseline of the REST cases, run as its own process (`node bench/lib/bare-fastify-server.js
 * BODIES.json`): a bare Fastify 5 app with `GET /bare` answering the `get` body of BODIES.json and
 * `POST /bare` parsing the request's JSON and answering the `post` body. No hooks, no schemas, no
 * logger: the least Fastify does for a route. Prints `listening PORT` on stdout once bound to
 * 127.0.0.1 on a free port; exits on SIGTERM.
 */

import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: node bench/lib/bare-fastify-server.js BODIES.json');
const bodies = JSON.parse(readFileSync(file, 'utf8'));

const app = Fastify({ logger: false });
// The same object every time (Fastify serializes it per request): the strictest baseline.
app.get('/bare', async () => bodies.get);
app.post('/bare', async (request) => {
  if (request.body === undefined) throw new Error('the bare POST route got no body');
  return bodies.post;
});

await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
