import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { forbidden } from '../../../errors.js';
import { completeSetup } from '../../../services/management/console-app.js';
import { findConsoleAppId } from '../../../services/management/console-users.js';
import { findUserById } from '../../../store/repos/users.js';
import { eventContext } from '../../event-context.js';
import type { Guards } from '../../plugins/guards.js';
import { errors } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';

// docs/management.md: the first-run setup. The link `serve` prints carries a token; a console user who
// signed up opens it signed in, and this route consumes it (once) and makes them the operator.
// GET /v1/console/session says who the credential is and what it may do beyond its tenants' roles.

const SessionBody = Type.Object({
  user_id: Type.Union([Type.String(), Type.Null()], { description: 'the console user (null: ADMIN_TOKEN or a tenant API token)' }),
  email: Type.Union([Type.String(), Type.Null()]),
  operator: Type.Boolean({ description: 'reaches every tenant' }),
  tenant_creation: Type.Boolean({ description: 'may POST /v1/tenants: the operator, or any console user with CONSOLE_OPEN_SIGNUP=true' }),
});

export function managementConsoleRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'management');

  app.get(
    '/v1/console/session',
    route.console({ operationId: 'getConsoleSession', summary: 'Who the Console credential is: its user, whether an operator, whether it may create tenants', response: { 200: SessionBody, ...errors(401) } }),
    async (request) => {
      const caller = request.consoleCaller!;
      const userId = caller.token ? undefined : caller.userId;
      const consoleAppId = userId === undefined ? undefined : await findConsoleAppId(deps.db);
      const user = consoleAppId === undefined || userId === undefined ? undefined : await findUserById(deps.db, consoleAppId, userId);
      return {
        user_id: userId ?? null,
        email: user?.email ?? null,
        operator: caller.operator,
        tenant_creation: !caller.token && (caller.operator || (deps.config.consoleOpenSignup && userId !== undefined)),
      };
    },
  );

  app.post(
    '/v1/console/setup',
    route.console({
      operationId: 'completeConsoleSetup',
      summary: 'Consume a setup link and make the signed-in console user an operator',
      body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
      response: { 200: Type.Object({ user_id: Type.String(), operator: Type.Literal(true) }), ...errors(400, 401, 403) },
    }),
    async (request) => {
      const userId = request.consoleCaller!.userId;
      if (userId === undefined) throw forbidden('the setup link is consumed with a console session (sign up at the console first)');
      return completeSetup(deps, userId, request.body.token, eventContext(request));
    },
  );
}
