import { InvalidTokenError } from './errors.js';
import { tokenOf } from './request-token.js';
import type { AccessClaims, Verifier } from './verify.js';
// Types only (erased from the JavaScript): the augmentation below needs the module it augments.
import type {} from 'fastify';

// `req.auth` (Express) and `request.auth` (Fastify) typed for every route once this package is imported:
// Express merges its global namespace into its Request, Fastify's FastifyRequest is an open interface.
declare global {
  namespace Express {
    interface Request {
      /** The access token's claims: set by `expressAuth` (unset on an `optional` route without a token). */
      auth?: AccessClaims;
    }
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The access token's claims: set by `fastifyAuth` (unset on an `optional` route without a token). */
    auth?: AccessClaims;
  }
}

export interface AuthOptions {
  /** Let a request without a token through, `auth` unset (a token that is there must still be valid). */
  optional?: boolean;
  /** `'aal2'`: a session that has not used a second factor is answered 403 `aal2_required`. */
  aal?: 'aal1' | 'aal2';
  /**
   * The active organisation's role, or any of several: a token without an active organisation is answered 403
   * `organization_required`, another role 403 `org_role_required`.
   */
  orgRole?: string | readonly string[];
  /** Permissions of the active organisation's role, every one of them: 403 `organization_required` or `permission_required`. */
  permission?: string | readonly string[];
}

/**
 * For fetch-style frameworks (after `verifier.verifyRequest`): what the middlewares would answer 403 for claims
 * that miss `aal`, `orgRole` or `permission`, as `{detail, code}`; undefined when they meet every one.
 */
export function unmetRequirement(claims: AccessClaims, options: Omit<AuthOptions, 'optional'>): { detail: string; code: string } | undefined {
  const refusal = requirementRefusal(claims, options);
  return refusal && { detail: refusal.body.detail, code: refusal.body.code! };
}

/** For fetch-style frameworks: the same as `verifier.verifyRequest(request)`. */
export function claimsFromRequest(verifier: Verifier, request: Request): Promise<AccessClaims> {
  return verifier.verifyRequest(request);
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

interface Refusal {
  status: 401 | 403;
  headers: Record<string, string>;
  body: { detail: string; code?: string };
}

const invalid = (error: InvalidTokenError): Refusal => ({
  status: 401,
  headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
  body: { detail: error.message },
});

// RFC 9470's challenge: the client knows to step up (sign in with a second factor) rather than sign in again.
const aal2Required: Refusal = {
  status: 403,
  headers: { 'www-authenticate': 'Bearer error="insufficient_user_authentication", acr_values="aal2"' },
  body: { detail: 'this route needs a session that used a second factor', code: 'aal2_required' },
};

const forbidden = (code: string, detail: string): Refusal => ({ status: 403, headers: {}, body: { detail, code } });
const list = (value: string | readonly string[]): readonly string[] => (typeof value === 'string' ? [value] : value);

/** Why valid claims do not meet the route's rules (aal, orgRole, permission), or undefined. */
function requirementRefusal(claims: AccessClaims, options: AuthOptions): Refusal | undefined {
  if (options.aal === 'aal2' && claims.aal !== 'aal2') return aal2Required;
  if (options.orgRole === undefined && options.permission === undefined) return undefined;
  if (typeof claims.org_id !== 'string') {
    return forbidden('organization_required', 'this route needs an active organisation: set one (POST /v1/sessions/active_organization)');
  }
  if (options.orgRole !== undefined && !list(options.orgRole).includes(claims.org_role ?? '')) {
    return forbidden('org_role_required', `this route needs the role ${list(options.orgRole).join(' or ')} in the active organisation`);
  }
  const held = new Set(claims.org_permissions ?? []);
  const missing = options.permission === undefined ? [] : list(options.permission).filter((permission) => !held.has(permission));
  if (missing.length) return forbidden('permission_required', `this route needs the permission ${missing.join(', ')} in the active organisation`);
  return undefined;
}

/** The claims of the request's token, or why it is refused; undefined for an optional route without a token. */
async function authenticate(verifier: Verifier, headers: Record<string, string | string[] | undefined>, options: AuthOptions): Promise<{ claims?: AccessClaims; refusal?: Refusal }> {
  const token = tokenOf(first(headers.authorization), first(headers.cookie));
  if (!token && options.optional) return {};
  try {
    const claims = await verifier.verify(token ?? '');
    const refusal = requirementRefusal(claims, options);
    return refusal ? { refusal } : { claims };
  } catch (error) {
    if (error instanceof InvalidTokenError) return { refusal: invalid(error) };
    throw error;
  }
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

/**
 * Express (and Connect) middleware: sets `req.auth` to the claims, or answers 401 `{detail}` (403
 * `{detail, code}` for a token that does not meet `aal`, `orgRole` or `permission`: `aal2_required`,
 * `organization_required`, `org_role_required`, `permission_required`).
 */
export function expressAuth(verifier: Verifier, options: AuthOptions = {}) {
  return (request: NodeRequest, response: NodeResponse, next: (error?: unknown) => void): void => {
    authenticate(verifier, request.headers, options).then(({ claims, refusal }) => {
      if (!refusal) {
        if (claims) request.auth = claims;
        return next();
      }
      response.statusCode = refusal.status;
      response.setHeader('content-type', 'application/json; charset=utf-8');
      for (const [name, value] of Object.entries(refusal.headers)) response.setHeader(name, value);
      response.end(JSON.stringify(refusal.body));
    }, next);
  };
}

interface FastifyLikeRequest {
  headers: Record<string, string | string[] | undefined>;
  auth?: AccessClaims;
}

interface FastifyLikeReply {
  code(status: number): FastifyLikeReply;
  headers(values: Record<string, string>): FastifyLikeReply;
  send(body: unknown): unknown;
}

/** A Fastify `preHandler`: sets `request.auth`, or answers as `expressAuth` does. */
export function fastifyAuth(verifier: Verifier, options: AuthOptions = {}) {
  return async (request: FastifyLikeRequest, reply: FastifyLikeReply): Promise<unknown> => {
    const { claims, refusal } = await authenticate(verifier, request.headers, options);
    if (!refusal) {
      if (claims) request.auth = claims;
      return undefined;
    }
    // An async hook that answers returns the reply, so Fastify runs no handler after it.
    return reply.code(refusal.status).headers(refusal.headers).send(refusal.body);
  };
}
