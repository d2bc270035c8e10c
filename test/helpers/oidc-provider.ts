import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

// A real OpenID Connect provider (oidc-provider, the certified Node implementation) on loopback, playing
// Google (query response mode, client_secret_basic) or Apple (form_post, client_secret_post whose
// secret is an ES256 JWT signed with the app's .p8 key, checked here as Apple checks it). People log in
// through its own interaction pages (dev interactions: any login name, any password; then consent).
//
// The issuer URL must be known before Gatehouse starts (GOOGLE_ISSUER) and the redirect URI (Gatehouse's
// URL) before the provider starts: createIssuer listens at once (until start(), every request gets 503),
// start() builds the provider and hands it the requests. Listening from the start keeps the port: a port
// probed free and released could be taken by another socket before the provider bound it.

export interface ProviderAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  /** Entra-shaped claims (kind 'microsoft'): the tenant and object ids, "email domain owner verified". */
  tid?: string;
  oid?: string;
  xms_edov?: boolean;
}

export interface AppleKey {
  teamId: string;
  keyId: string;
  /** The .p8 file's content: PKCS#8 PEM of an EC P-256 key. */
  privateKeyPem: string;
  publicKey: KeyObject;
}

export interface IssuerClient {
  clientId: string;
  /** Google-style clients: the client secret. */
  clientSecret?: string;
  /** Apple-style clients: the key whose ES256 JWTs are the client secret. */
  apple?: AppleKey;
}

/** A way to alter the next ID token the token endpoint answers (a provider gone wrong, or an attacker). */
export interface IdTokenTamper {
  claims?: (claims: JWTPayload) => JWTPayload;
  /** Sign with a key the provider never published (same kid), instead of the provider's own key. */
  foreignKey?: boolean;
}

/**
 * google: query response, client_secret_basic. apple: form_post, client_secret_post with ES256 JWTs.
 * microsoft: Entra-shaped (issuer {base}/{tid}/v2.0, the tid/oid/xms_edov claims, client_secret_post, and
 * the multi-tenant discovery documents at {base}/common|organizations|consumers/v2.0 with the templated
 * issuer {base}/{tenantid}/v2.0). oidc: a plain OpenID provider (client_secret_basic), at `path` if given.
 */
export type IssuerKind = 'google' | 'apple' | 'microsoft' | 'oidc';

export interface TestIssuer {
  kind: IssuerKind;
  issuer: string;
  /** http://127.0.0.1:port (the issuer is base + path). */
  base: string;
  port: number;
  /** Who can log in, by login name (= subject). */
  accounts: Map<string, ProviderAccount>;
  /** The client secrets presented at the token endpoint (Apple: the JWTs), in order. */
  clientSecretsSeen: string[];
  start(redirectUri: string): Promise<void>;
  tamperNextIdToken(tamper: IdTokenTamper): void;
  stop(): Promise<void>;
}

/** A fresh Apple-style key: an EC P-256 key in PKCS#8 PEM, as Apple hands out in the .p8 file. */
export function newAppleKey(teamId = 'TEAM123456', keyId = `KEY${randomBytes(4).toString('hex').toUpperCase()}`): AppleKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { teamId, keyId, privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, publicKey };
}

export async function createIssuer(kind: IssuerKind, clients: IssuerClient[], options: { path?: string } = {}): Promise<TestIssuer> {
  let handle: RequestListener = (_req, res) => res.writeHead(503).end();
  const path = options.path ?? '';
  let discovery: Record<string, unknown> | undefined;
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    // Entra's multi-tenant endpoints: the tenant's own document, its issuer a template.
    const multi = /^\/(common|organizations|consumers)\/v2\.0\/\.well-known\/openid-configuration$/.exec(url);
    if (kind === 'microsoft' && multi && discovery) {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...discovery, issuer: `${base}/{tenantid}/v2.0` }));
    }
    if (!path) return handle(req, res);
    if (!url.startsWith(path)) return void res.writeHead(404).end();
    (req as { originalUrl?: string }).originalUrl = url;
    req.url = url.slice(path.length) || '/';
    handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const base = `http://127.0.0.1:${port}`;
  const issuer = `${base}${path}`;
  const accounts = new Map<string, ProviderAccount>();
  const clientSecretsSeen: string[] = [];
  const signing = await generateKeyPair('RS256', { extractable: true });
  const kid = `${kind}-key-1`;
  const privateJwk: JWK = { ...(await exportJWK(signing.privateKey)), kid, alg: 'RS256', use: 'sig' };
  let pendingTamper: IdTokenTamper | undefined;
  let stopped = false;

  async function retamper(idToken: string, tamper: IdTokenTamper): Promise<string> {
    const claims = tamper.claims ? tamper.claims(decodeJwt(idToken)) : decodeJwt(idToken);
    const key = tamper.foreignKey ? (await generateKeyPair('RS256')).privateKey : signing.privateKey;
    return new SignJWT(claims).setProtectedHeader({ ...decodeProtectedHeader(idToken), alg: 'RS256', kid }).sign(key);
  }

  async function start(redirectUri: string): Promise<void> {
    const provider = new Provider(issuer, {
      clients: clients.map((c) => ({
        client_id: c.clientId,
        // Apple-style clients still need a registered secret for client_secret_post; compareClientSecret below replaces the check.
        client_secret: c.clientSecret ?? randomBytes(24).toString('hex'),
        redirect_uris: [redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: kind === 'apple' || kind === 'microsoft' ? 'client_secret_post' : 'client_secret_basic',
      })),
      findAccount: async (_ctx: unknown, sub: string) => {
        const account = accounts.get(sub);
        return account && { accountId: sub, claims: async () => ({ sub, ...account }) };
      },
      claims:
        kind === 'microsoft'
          ? { openid: ['sub', 'tid', 'oid'], email: ['email', 'email_verified', 'xms_edov'], profile: ['name'] }
          : { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], name: ['name'] },
      // Google and Apple put the email in the ID token itself, not only behind the userinfo endpoint.
      conformIdTokenClaims: false,
      pkce: { methods: ['S256'], required: () => true },
      jwks: { keys: [privateJwk] },
      cookies: { keys: [randomBytes(16).toString('hex')] },
      features: { devInteractions: { enabled: true } },
      ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
    } as never);

    if (kind === 'apple') {
      // Apple checks the client secret as a JWT: ES256 by the registered key (kid), iss = team id,
      // sub = client id, aud = the issuer, unexpired.
      const byClient = new Map(clients.map((c) => [c.clientId, c.apple]));
      (provider.Client.prototype as unknown as { compareClientSecret(this: { clientId: string }, actual: string): Promise<boolean> }).compareClientSecret =
        async function compareClientSecret(actual) {
          clientSecretsSeen.push(actual);
          const key = byClient.get(this.clientId);
          if (!key) return false;
          try {
            const { protectedHeader } = await jwtVerify(actual, key.publicKey, { algorithms: ['ES256'], issuer: key.teamId, subject: this.clientId, audience: issuer });
            return protectedHeader.kid === key.keyId;
          } catch {
            return false;
          }
        };
    } else if (kind !== 'microsoft') {
      provider.use(async (ctx, next) => {
        if (ctx.path === '/token') {
          const basic = /^Basic (.+)$/.exec(ctx.get('authorization'));
          if (basic) clientSecretsSeen.push(decodeURIComponent(Buffer.from(basic[1], 'base64').toString().split(':')[1] ?? ''));
        }
        await next();
      });
    }

    provider.use(async (ctx, next) => {
      await next();
      const body = ctx.body as { id_token?: string } | undefined;
      if (ctx.path === '/token' && pendingTamper && body?.id_token) {
        const tamper = pendingTamper;
        pendingTamper = undefined;
        ctx.body = { ...body, id_token: await retamper(body.id_token, tamper) };
      }
    });

    handle = provider.callback();
    if (kind === 'microsoft') discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  }

  return {
    kind,
    issuer,
    base,
    port,
    accounts,
    clientSecretsSeen,
    start,
    tamperNextIdToken: (tamper) => {
      pendingTamper = tamper;
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      const closing = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closing;
    },
  };
}
