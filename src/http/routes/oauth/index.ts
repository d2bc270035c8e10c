import type { Deps } from '../../../deps.js';
import type { Guards } from '../../plugins/guards.js';
import type { Http } from '../../types.js';
import { oauthFlowRoutes } from './flow.js';
import { oauthProviderRoutes } from './providers.js';

/** docs/oauth.md: OAuth provider configuration, authorize and callbacks. */
export function oauthRoutes(app: Http, deps: Deps, guards: Guards): void {
  oauthProviderRoutes(app, deps, guards);
  oauthFlowRoutes(app, deps, guards);
}
