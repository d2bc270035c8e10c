import { eventContext } from '../../event-context.js';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.js';
import { confirmTotp, enrollTotp, listMyFactors, removeMyFactor, renameMyFactor, renewRecoveryCodes } from '../../../services/mfa/factors.js';
import { setSessionCookie } from '../../cookies.js';
import type { Guards } from '../../plugins/guards.js';
import { errors, StatusBody, Uuid } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { EnrolledFactor, Factor, FactorList, FriendlyName, RecoveryCodes } from './schemas.js';

const FactorParams = Type.Object({ factor_id: Uuid });

/** The caller's session as the factor services take it. */
const factorSession = (request: FastifyRequest) => {
  const s = request.session!;
  return { userId: s.userId, sessionId: s.sessionId, authTime: s.authTime, amr: s.amr, aal: s.aal, context: eventContext(request) };
};

/** A session that came by cookie gets the new (aal2) access token in its cookie too. */
function renewSessionCookie(request: FastifyRequest, reply: FastifyReply, deps: Deps, accessToken: string): void {
  if (request.session!.via === 'cookie') setSessionCookie(reply, deps.config, accessToken);
}

export function myFactorRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'second factors');

  app.get(
    '/v1/me/factors',
    {
      ...route.session({ operationId: 'listMyFactors', summary: "The signed-in user's second factors, and how many unused recovery codes are left", response: { 200: FactorList, ...errors(401, 403) } }),
      config: { mfaEnrollment: true },
    },
    async (request) => listMyFactors(deps, request.application!, request.session!.userId),
  );

  app.post(
    '/v1/me/factors/totp',
    {
      ...route.session({
        operationId: 'enrollTotp',
        summary: 'Start a TOTP enrollment: the secret, its otpauth:// URI and an SVG QR code (shown once)',
        description:
          'The factor stays unverified until POST /v1/me/factors/{factor_id}/verify gets a first code; a new enrollment replaces an unconfirmed one. ' +
          'A user who already has a verified factor needs an aal2 session (403 otherwise); a user whose email is unverified cannot enroll (403). ' +
          'An enrollment not confirmed within 10 minutes is dead.',
        body: Type.Object({ friendly_name: Type.Optional(FriendlyName) }),
        response: {
          201: Type.Object({
            factor_id: Uuid,
            type: Type.Literal('totp'),
            status: Type.Literal('unverified'),
            friendly_name: Type.Union([Type.String(), Type.Null()]),
            totp: Type.Object({
              secret: Type.String({ description: 'base32, for manual entry' }),
              uri: Type.String({ description: 'otpauth://totp/... (SHA1, 6 digits, 30 s)' }),
              qr_code: Type.String({ description: 'an SVG image of the URI' }),
            }),
          }),
          ...errors(400, 401, 403),
        },
      }),
      config: { mfaEnrollment: true },
    },
    async (request, reply) => {
      const enrolled = await enrollTotp(deps, request.application!, factorSession(request), request.body.friendly_name ?? null);
      reply.header('cache-control', 'no-store');
      return reply.status(201).send(enrolled);
    },
  );

  app.post(
    '/v1/me/factors/:factor_id/verify',
    {
      ...route.session({
        operationId: 'confirmTotp',
        summary: 'Confirm a TOTP enrollment with its first code: 10 recovery codes (shown once) and an aal2 access token',
        description:
          'A wrong code is 400 (5, or 10 minutes since the enrollment, and it is dead: start again). The earlier recovery codes, if any, stop working. ' +
          'A user with another verified factor confirms from an aal2 session only (403 aal2_required). A first factor signs out the user\'s other sessions. ' +
          'The session becomes aal2: the answer carries a new access token (and renews the __session cookie when the session came by cookie); ' +
          'its refresh token keeps working and its next refresh is aal2 too. The user is sent a notice.',
        params: FactorParams,
        body: Type.Object({ code: Type.String({ pattern: '^[0-9]{6}$' }) }),
        response: { 200: EnrolledFactor, ...errors(400, 401, 403, 404) },
      }),
      config: { mfaEnrollment: true },
    },
    async (request, reply) => {
      const confirmed = await confirmTotp(deps, request.application!, factorSession(request), request.params.factor_id, request.body.code);
      renewSessionCookie(request, reply, deps, confirmed.access_token);
      reply.header('cache-control', 'no-store');
      return confirmed;
    },
  );

  app.patch(
    '/v1/me/factors/:factor_id',
    route.session({
      operationId: 'renameMyFactor',
      summary: 'Rename one of my factors (a passkey or an authenticator app)',
      params: FactorParams,
      body: Type.Object({ friendly_name: Type.Union([FriendlyName, Type.Null()]) }),
      response: { 200: Factor, ...errors(400, 401, 403, 404) },
    }),
    async (request) => renameMyFactor(deps, request.application!, request.session!.userId, request.params.factor_id, request.body.friendly_name),
  );

  app.delete(
    '/v1/me/factors/:factor_id',
    route.session({
      operationId: 'removeMyFactor',
      summary: 'Remove one of my factors (needs a sign-in within the last 10 minutes, and aal2 for a verified factor)',
      description: '403 when the session signed in more than 10 minutes ago (auth_time; sign in again) or, for a verified factor, the session is aal1. The last verified factor takes the recovery codes with it. The user is sent a notice.',
      params: FactorParams,
      response: { 200: StatusBody('deleted'), ...errors(401, 403, 404) },
    }),
    async (request) => removeMyFactor(deps, request.application!, factorSession(request), request.params.factor_id),
  );

  app.post(
    '/v1/me/recovery_codes',
    route.session({
      operationId: 'renewRecoveryCodes',
      summary: 'A new set of 10 recovery codes (shown once); the earlier set stops working. Needs an aal2 session',
      response: { 200: Type.Object({ recovery_codes: RecoveryCodes }), ...errors(400, 401, 403) },
    }),
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return renewRecoveryCodes(deps, request.application!, factorSession(request));
    },
  );
}
