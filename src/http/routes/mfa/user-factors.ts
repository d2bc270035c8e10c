import { eventContext } from '../../event-context.js';
import type { Deps } from '../../../deps.js';
import { listUserFactors, resetUserFactors } from '../../../services/mfa/admin.js';
import type { Guards } from '../../plugins/guards.js';
import { errors, StatusBody } from '../../schemas.js';
import type { Http } from '../../types.js';
import { FactorList } from './schemas.js';
import { UserParams } from '../users.js';
import { routesOf } from '../../route-security.js';

export function userFactorRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'second factors');

  app.get(
    '/v1/users/:user_id/factors',
    route.secret({ operationId: 'listUserFactors', summary: "A user's second factors (no secret) and unused recovery codes left", params: UserParams, response: { 200: FactorList, ...errors(400, 401, 403, 404) } }),
    async (request) => listUserFactors(deps, request.application!, request.params.user_id),
  );

  app.delete(
    '/v1/users/:user_id/factors',
    route.secret({
      operationId: 'resetUserFactors',
      summary: "Reset a user's second factors: every factor, recovery code and pending MFA challenge removed; the user is sent a notice",
      description: 'For a user who lost every factor, once the operator has checked who they are. Their sessions stay.',
      params: UserParams,
      response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404) },
    }),
    async (request) => resetUserFactors(deps, request.application!, request.params.user_id, eventContext(request)),
  );
}
