import type { Deps } from '../../../deps.js';
import type { Guards } from '../../plugins/guards.js';
import type { Http } from '../../types.js';

// PLACEHOLDER: routes land with their issue.
export function challengeRoutes(_app: Http, _deps: Deps, _guards: Guards): void {}
