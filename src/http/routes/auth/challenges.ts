import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { issueChallenge } from '../../../services/accounts/hashcash.js';
import type { Guards } from '../../plugins/guards.js';
import { errors } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { rateLimitIp } from '../../client-ip.js';

const Challenge = Type.Object(
  {
    challenge: Type.String({ description: 'Opaque; send it back unchanged with the nonce' }),
    difficulty: Type.Integer({ description: 'Required leading zero bits of the proof hash' }),
    algorithm: Type.Literal('argon2id'),
    params: Type.Object({
      time_cost: Type.Integer(),
      memory_cost: Type.Integer({ description: 'KiB' }),
      parallelism: Type.Integer(),
      hash_len: Type.Integer({ description: 'bytes' }),
    }),
    expires_in: Type.Integer({ description: 'seconds' }),
  },
  { description: 'Hashcash challenge (docs/api.md); the proof encoding is in docs/hashcash.md' },
);

export function challengeRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'sign-up and sign-in');

  app.post(
    '/v1/challenges',
    route.publishable({ operationId: 'createChallenge', summary: 'A proof-of-work challenge, required before sign-up when hashcash is on', response: { 200: Challenge, ...errors(401, 429) } }),
    async (request) => {
      const application = request.application!;
      await deps.limiter.consume('challenge_ip', `${application.id}:${rateLimitIp(request.ip)}`);
      return issueChallenge(deps, application);
    },
  );
}
