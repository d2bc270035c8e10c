// The ceilings the server is compared with, as a process of its own like the real one: a bare Fastify 5
// app answering `GET /hello`, and `GET /verify` doing one jose RS256 verify of the Bearer token per
// request (the key imported once), nothing else. Prints `listening <port>` when ready.
//
//   node bench/lib/ceiling-server.mjs <port>
import Fastify from 'fastify';
import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT } from 'jose';

const port = Number(process.argv[2]);
const { privateKey, publicKey: generated } = await generateKeyPair('RS256', { modulusLength: 2048 });
// Through a JWK, as the service holds its public keys.
const publicKey = await importJWK(await exportJWK(generated), 'RS256');

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));
app.get('/token', async () => ({
  token: await new SignJWT({ sid: 'bench', email: 'bench@example.com', email_verified: true })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench:1', typ: 'JWT' })
    .setIssuer('https://bench.example')
    .setAudience('bench')
    .setSubject('00000000-0000-4000-8000-000000000000')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey),
}));
app.get('/verify', async (request, reply) => {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  try {
    const { payload } = await jwtVerify(token ?? '', publicKey, { algorithms: ['RS256'], issuer: 'https://bench.example', audience: 'bench' });
    return { user_id: payload.sub };
  } catch {
    return reply.code(401).send({ detail: 'invalid token' });
  }
});
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(`listening ${port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
