import type { Deps } from '../../deps.js';
import type { Guards } from '../plugins/guards.js';
import type { Http } from '../types.js';
import { challengeRoutes } from './auth/challenges.js';
import { sessionRoutes } from './auth/session.js';
import { signinRoutes } from './auth/signins.js';
import { signupRoutes } from './auth/signups.js';
import { verifyRoutes } from './auth/verify.js';
import { botRoutes } from './bots.js';
import { docsRoutes } from './docs.js';
import { healthRoutes } from './health.js';
import { jwksRoutes } from './jwks.js';
import { ssoRoutes } from './sso.js';
import { userRoutes } from './users.js';

/** Every route module, one per spec part, registered explicitly. */
export function registerRoutes(app: Http, deps: Deps, guards: Guards): void {
  healthRoutes(app, deps);
  jwksRoutes(app, deps);
  docsRoutes(app);
  // 4.1 sign-up and sign-in
  challengeRoutes(app, deps, guards);
  signupRoutes(app, deps, guards);
  signinRoutes(app, deps, guards);
  verifyRoutes(app, deps, guards);
  sessionRoutes(app, deps, guards);
  // 4.3 SSO, 4.4 bots, 4.5 users and sessions
  ssoRoutes(app, deps, guards);
  botRoutes(app, deps, guards);
  userRoutes(app, deps, guards);
}
