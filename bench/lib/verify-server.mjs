// An integrator's API for bench/sizing.mjs: Fastify with @gatehouse/server's fastifyAuth on GET /private,
// every token verified offline against the app's JWKS (fetched once from Gatehouse). Prints "listening".
//   node bench/lib/verify-server.mjs PORT GATEHOUSE_URL APP_ID
import Fastify from 'fastify';
import { createVerifier, fastifyAuth } from '@gatehouse/server';

const [port, baseUrl, appId] = process.argv.slice(2);
const verifier = createVerifier({ baseUrl, appId });
const app = Fastify({ logger: false });
app.get('/private', { preHandler: fastifyAuth(verifier) }, async (request) => ({ user: request.auth.sub }));
await app.listen({ port: Number(port), host: '127.0.0.1' });
console.log('listening');
