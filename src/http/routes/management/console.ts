import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { forbidden } from '../../../errors.js';
import { completeSetup } from '../../../services/management/console-app.js';
import { eventContext } from '../../event-context.js';
import type { Guards } from '../../plugins/guards.js';
import { errors } from '../../schemas.js';
import type { Http } from '../../types.js';
import { consoleRoute } from './schemas.js';

// docs/management.md: the first-run setup. The link `serve` prints carries a token; a console user who
// signed up opens it signed in, and this route consumes it (once) and makes them the operator.

export function managementConsoleRoutes(app: Http, deps: Deps, guards: Guards): void {
  app.post(
    '/v1/console/setup',
    {
      preHandler: guards.console,
      schema: {
        operationId: 'completeConsoleSetup',
        ...consoleRoute('management'),
        summary: 'Consume a setup link and make the signed-in console user an operator',
        body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: Type.Object({ user_id: Type.String(), operator: Type.Literal(true) }), ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const userId = request.consoleCaller!.userId;
      if (userId === undefined) throw forbidden('the setup link is consumed with a console session (sign up at the console first)');
      return completeSetup(deps, userId, request.body.token, eventContext(request));
    },
  );
}
