import { InvalidTokenError } from './errors.js';
import type { AccessClaims, Verifier } from './verify.js';

// The token of a request: `Authorization: Bearer ...`, else the `__session` cookie (same-site pages).

function fromHeaders(authorization: string | null | undefined, cookie: string | null | undefined): string | undefined {
  const bearer = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization.trim())?.[1] : undefined;
  if (bearer) return bearer;
  for (const part of (cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === '__session') return decodeURIComponent(value.join('='));
  }
  return undefined;
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** For fetch-style frameworks (Hono, Next.js route handlers, Remix, Workers): the request's claims, or InvalidTokenError. */
export async function claimsFromRequest(verifier: Verifier, request: Request): Promise<AccessClaims> {
  const token = fromHeaders(request.headers.get('authorization'), request.headers.get('cookie'));
  if (!token) throw new InvalidTokenError('missing', 'no access token');
  return verifier.verify(token);
}

interface NodeRequest {
  headers: Record<string, string | string[] | undefined>;
  auth?: AccessClaims;
}

interface NodeResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

function refuse(response: NodeResponse, error: InvalidTokenError): void {
  response.statusCode = 401;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.setHeader('www-authenticate', `Bearer error="invalid_token"`);
  response.end(JSON.stringify({ detail: error.message }));
}

/**
 * Express (and Connect) middleware: sets `req.auth` to the claims, or answers 401 `{detail}`.
 * `optional: true` lets a request without a token through with `req.auth` unset.
 */
export function expressAuth(verifier: Verifier, options: { optional?: boolean } = {}) {
  return (request: NodeRequest, response: NodeResponse, next: (error?: unknown) => void): void => {
    const token = fromHeaders(first(request.headers.authorization), first(request.headers.cookie));
    if (!token && options.optional) return next();
    verifier.verify(token ?? '').then(
      (claims) => {
        request.auth = claims;
        next();
      },
      (error: unknown) => (error instanceof InvalidTokenError ? refuse(response, error) : next(error)),
    );
  };
}

interface FastifyLikeRequest {
  headers: Record<string, string | string[] | undefined>;
  auth?: AccessClaims;
}

interface FastifyLikeReply {
  code(status: number): FastifyLikeReply;
  header(name: string, value: string): FastifyLikeReply;
  send(body: unknown): unknown;
}

/**
 * A Fastify `preHandler`: sets `request.auth`, or answers 401 `{detail}`. Declare the field once:
 * `declare module 'fastify' { interface FastifyRequest { auth?: AccessClaims } }`.
 */
export function fastifyAuth(verifier: Verifier, options: { optional?: boolean } = {}) {
  return async (request: FastifyLikeRequest, reply: FastifyLikeReply): Promise<unknown> => {
    const token = fromHeaders(first(request.headers.authorization), first(request.headers.cookie));
    if (!token && options.optional) return undefined;
    try {
      request.auth = await verifier.verify(token ?? '');
      return undefined;
    } catch (error) {
      if (!(error instanceof InvalidTokenError)) throw error;
      // An async hook that answers returns the reply, so Fastify runs no handler after it.
      return reply.code(401).header('www-authenticate', 'Bearer error="invalid_token"').send({ detail: error.message });
    }
  };
}
