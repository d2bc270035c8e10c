import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { describeChallenge, verifyMfa, type MfaProof } from '../../../services/mfa/sign-in.js';
import { clientInfo, rateLimitIp } from '../../client-ip.js';
import type { Guards } from '../../plugins/guards.js';
import { errors } from '../../schemas.js';
import { answerSession } from '../../sign-in-answer.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { MfaRequiredBody, SessionTokensBody } from '../auth/schemas.js';
import { passkeySecondFactor } from '../../../services/mfa/passkeys.js';
import { asAssertion, PasskeyCredential } from './passkey-schemas.js';

const MfaToken = Type.String({ minLength: 1, maxLength: 128, description: 'from the sign-in that answered mfa_required' });

const VerifyBody = Type.Union([
  Type.Object({ mfa_token: MfaToken, code: Type.String({ pattern: '^[0-9]{6}$', description: 'the authenticator app\'s code' }), factor_id: Type.Optional(Type.String({ format: 'uuid' })) }),
  Type.Object({ mfa_token: MfaToken, recovery_code: Type.String({ minLength: 1, maxLength: 32 }) }),
  Type.Object({ mfa_token: MfaToken, passkey: PasskeyCredential }),
]);

export function mfaVerifyRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'second factors');

  app.post(
    '/v1/mfa/challenge',
    route.publishable({
      operationId: 'describeMfaChallenge',
      summary: 'The factors a pending MFA challenge may be completed with, and when it ends (for a page that landed with ?mfa_token=)',
      description:
        'Reads the challenge and spends nothing: a link or an OAuth callback hands the page only the mfa_token, and this tells it what to ask for ' +
        '(a code, or a passkey). An unknown, used or expired mfa_token, or one of another app, is 401. Counts in the mfa_verify_ip window.',
      body: Type.Object({ mfa_token: MfaToken }),
      response: { 200: Type.Omit(MfaRequiredBody, ['mfa_token'], { title: 'MfaChallenge' }), ...errors(400, 401, 429) },
    }),
    async (request) => {
      const application = request.application!;
      await deps.limiter.consume('mfa_verify_ip', `${application.id}:${rateLimitIp(request.ip)}`);
      return describeChallenge(deps, application, request.body.mfa_token);
    },
  );

  app.post(
    '/v1/mfa/verify',
    route.publishable({
      operationId: 'verifyMfa',
      summary: 'Complete a sign-in with a second factor: a TOTP code, a recovery code or a passkey → the session',
      description:
        'Answers as the sign-in would have (tokens and cookies); the access token carries amr (e.g. ["pwd","otp"]) and aal "aal2". ' +
        'A wrong code is 400 and counts against the mfa_token (5 and it dies: 401, sign in again); a code, a time step or a recovery code is accepted once. ' +
        'A TOTP factor with 5 wrong codes in a row, across challenges, refuses every code (right or wrong) with 429 and Retry-After for 1 minute, doubling with each further wrong code up to an hour; its right code resets the count. ' +
        'An unknown, used or expired mfa_token, or one of another app, is 401.',
      body: VerifyBody,
      response: { 200: SessionTokensBody, ...errors(400, 401, 429) },
    }),
    async (request, reply) => {
      const application = request.application!;
      await deps.limiter.consume('mfa_verify_ip', `${application.id}:${rateLimitIp(request.ip)}`);
      const body = request.body;
      const proof: MfaProof =
        'code' in body
          ? { code: body.code, factorId: body.factor_id }
          : 'recovery_code' in body
            ? { recoveryCode: body.recovery_code }
            : { passkey: passkeySecondFactor(deps, application, asAssertion(body.passkey)) };
      return answerSession(reply, deps.config, await verifyMfa(deps, application, body.mfa_token, proof, clientInfo(request)));
    },
  );
}
