import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { authenticateBot, signUpBot } from '../../services/accounts/bots.js';
import type { Guards } from '../plugins/guards.js';
import { SessionTokensBody } from './auth/schemas.js';
import { errors, SafeInteger, Uuid } from '../schemas.js';
import type { Http } from '../types.js';
import { routesOf } from '../route-security.js';
import { clientInfo, rateLimitIp } from '../client-ip.js';

// docs/bots.md: bots sign up with a confirmed donation and sign in with Ed25519.

const SignupBody = Type.Object({
  // Starts with a letter or digit so it can never be "." or ".." in the provider's URL path.
  challenge_id: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$', description: 'The donation challenge id from the provider' }),
  public_key: Type.String({ maxLength: 256, description: 'Standard base64 of the 32-byte Ed25519 public key' }),
});

const BotBody = Type.Object({ bot_id: Uuid, public_key: Type.String() });

const AuthBody = Type.Object({
  bot_id: Uuid,
  timestamp: SafeInteger({ description: 'Unix seconds; within 5 minutes of server time' }),
  signature: Type.String({ maxLength: 256, description: 'Base64 Ed25519 signature of service:bot_auth:{app_id}:{bot_id}:{timestamp}' }),
});

export function botRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'bots');

  app.post(
    '/v1/bot/signup',
    route.publishable({
      operationId: 'botSignUp',
      summary: 'Register a bot with a confirmed donation challenge and its Ed25519 public key',
      body: SignupBody,
      response: { 200: BotBody, ...errors(400, 401, 404, 409, 429, 502) },
    }),
    async (request) => {
      const application = request.application!;
      await deps.limiter.consume('bot_signup_ip', `${application.id}:${rateLimitIp(request.ip)}`);
      return signUpBot(deps, application, { challengeId: request.body.challenge_id, publicKey: request.body.public_key });
    },
  );

  app.post(
    '/v1/bot/auth',
    route.publishable({ operationId: 'botAuth', summary: 'Sign a bot in with an Ed25519 signature; answers a standard session', body: AuthBody, response: { 200: SessionTokensBody, ...errors(400, 401, 404, 429) } }),
    async (request) => {
      const application = request.application!;
      const { bot_id: botId, timestamp, signature } = request.body;
      await deps.limiter.consume('bot_auth_bot', `${application.id}:${botId}`);
      return authenticateBot(deps, application, { botId, timestamp, signature }, clientInfo(request));
    },
  );
}
