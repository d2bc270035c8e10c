import { eventContext } from '../../event-context.js';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { listUserFactors, resetUserFactors } from '../../../services/mfa/admin.js';
import type { Guards } from '../../plugins/guards.js';
import { errors, StatusBody, Uuid } from '../../schemas.js';
import type { Http } from '../../types.js';
import { FactorList } from './schemas.js';

const UserParams = Type.Object({ user_id: Uuid });

export function userFactorRoutes(app: Http, deps: Deps, guards: Guards): void {
  app.get(
    '/v1/users/:user_id/factors',
    {
      preHandler: guards.secret,
      schema: {
        operationId: 'listUserFactors',
        tags: ['second factors'],
        summary: "A user's second factors (no secret) and unused recovery codes left",
        security: [{ secret: [] }],
        params: UserParams,
        response: { 200: FactorList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => listUserFactors(deps, request.application!, request.params.user_id),
  );

  app.delete(
    '/v1/users/:user_id/factors',
    {
      preHandler: guards.secret,
      schema: {
        operationId: 'resetUserFactors',
        tags: ['second factors'],
        summary: "Reset a user's second factors: every factor, recovery code and pending MFA challenge removed; the user is sent a notice",
        description: 'For a user who lost every factor, once the operator has checked who they are. Their sessions stay.',
        security: [{ secret: [] }],
        params: UserParams,
        response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => resetUserFactors(deps, request.application!, request.params.user_id, eventContext(request)),
  );
}
