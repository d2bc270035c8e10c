import { eventContext } from '../../event-context.js';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.js';
import { liveChallenge } from '../../../services/mfa/sign-in.js';
import { mfaPasskeyOptions, passkeyRegistrationOptions, passkeySignInOptions, registerPasskey, signInWithPasskey } from '../../../services/mfa/passkeys.js';
import { clientInfo, rateLimitIp } from '../../client-ip.js';
import { setSessionCookie } from '../../cookies.js';
import type { Guards } from '../../plugins/guards.js';
import { errors, Uuid } from '../../schemas.js';
import { answerSession } from '../../sign-in-answer.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { SessionTokensBody } from '../auth/schemas.js';
import { asAssertion, asRegistration, CeremonyOptions, PasskeyCredential } from './passkey-schemas.js';
import { EnrolledFactor, FriendlyName } from './schemas.js';

const factorSession = (request: FastifyRequest) => {
  const s = request.session!;
  return { userId: s.userId, sessionId: s.sessionId, authTime: s.authTime, amr: s.amr, aal: s.aal, context: eventContext(request) };
};

export function passkeyRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'second factors');

  app.post(
    '/v1/me/passkeys/options',
    {
      ...route.session({
        operationId: 'passkeyRegistrationOptions',
        summary: 'Options for navigator.credentials.create: register a passkey (discoverable, user verification required)',
        description: "The relying party is the app's verified domain, else its first allowed origin's host; the page must be on the allow-list. Valid 5 minutes, once.",
        response: { 200: CeremonyOptions, ...errors(400, 401, 403) },
      }),
      config: { mfaEnrollment: true },
    },
    async (request) => passkeyRegistrationOptions(deps, request.application!, factorSession(request)),
  );

  app.post(
    '/v1/me/passkeys',
    {
      ...route.session({
        operationId: 'registerPasskey',
        summary: 'Register a passkey: the credential navigator.credentials.create made for the options',
        description:
          'Answers the factor, recovery codes (10 when it is the user\'s first factor, shown once; else none) and an aal2 access token for this session. ' +
          'A credential that does not verify, or a used or expired challenge_id, is 400; a credential id the app already holds is 409 (nothing is stored). The user is sent a notice.',
        body: Type.Object({ challenge_id: Uuid, credential: PasskeyCredential, friendly_name: Type.Optional(FriendlyName) }),
        response: { 201: EnrolledFactor, ...errors(400, 401, 403, 409) },
      }),
      config: { mfaEnrollment: true },
    },
    async (request, reply) => {
      const { challenge_id, credential, friendly_name } = request.body;
      const registered = await registerPasskey(deps, request.application!, factorSession(request), challenge_id, asRegistration(credential), friendly_name ?? null);
      if (request.session!.via === 'cookie') setSessionCookie(reply, deps.config, registered.access_token);
      reply.header('cache-control', 'no-store');
      return reply.status(201).send(registered);
    },
  );

  app.post(
    '/v1/passkeys/signin/options',
    route.publishable({
      operationId: 'passkeySignInOptions',
      summary: 'Options for navigator.credentials.get: sign in with a passkey (discoverable: no email needed)',
      response: { 200: CeremonyOptions, ...errors(400, 401, 429) },
    }),
    async (request) => {
      await deps.limiter.consume('mfa_verify_ip', `${request.application!.id}:${rateLimitIp(request.ip)}`);
      return passkeySignInOptions(deps, request.application!);
    },
  );

  app.post(
    '/v1/passkeys/signin',
    route.publishable({
      operationId: 'signInWithPasskey',
      summary: 'Sign in with a passkey: the session (amr ["webauthn"], aal2), as a sign-in answers it',
      description: 'A credential unknown to the app, one that does not verify, or a used or expired challenge_id is 401.',
      body: Type.Object({ challenge_id: Uuid, credential: PasskeyCredential }),
      response: { 200: SessionTokensBody, ...errors(400, 401, 429) },
    }),
    async (request, reply) => {
      const tokens = await signInWithPasskey(deps, request.application!, request.body.challenge_id, asAssertion(request.body.credential), clientInfo(request));
      return answerSession(reply, deps.config, tokens);
    },
  );

  app.post(
    '/v1/mfa/passkey/options',
    route.publishable({
      operationId: 'mfaPasskeyOptions',
      summary: "Options for navigator.credentials.get to complete an MFA challenge with one of the user's passkeys",
      description: 'Then POST /v1/mfa/verify with {mfa_token, passkey: credential}. An unknown, used or expired mfa_token is 401; a user without a passkey 400.',
      body: Type.Object({ mfa_token: Type.String({ minLength: 1, maxLength: 128 }) }),
      response: { 200: Type.Object({ options: CeremonyOptions.properties.options }), ...errors(400, 401) },
    }),
    async (request) => mfaPasskeyOptions(deps, request.application!, await liveChallenge(deps, request.application!, request.body.mfa_token)),
  );
}
