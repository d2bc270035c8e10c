// The console's one @gatehouse/client, for the console app. Bearer tokens in memory only: no cookie (every
// app's browser flows set cookies on this host), nothing in localStorage (multiTab off: no marker, no channel).
// A reload signs the person out; that is the price of keeping the tokens out of every store a script can read later.
import { createClient, type GatehouseClient, type Session } from '@gatehouse/client';
import { update } from './store.js';

let client: GatehouseClient | undefined;

export function startSession(publishableKey: string, powWorkerUrl: string | undefined): void {
  client = createClient({
    url: location.origin,
    publishableKey,
    storage: 'memory',
    multiTab: false,
    detectSessionInUrl: false,
    powWorkerUrl: powWorkerUrl ? new URL(powWorkerUrl, location.origin) : undefined,
  });
  client.auth.onAuthStateChange((event, session: Session | null) => {
    if (event === 'SIGNED_OUT' || !session) update({ signedIn: false, tenants: undefined, session: undefined });
    else if (event === 'SIGNED_IN' || event === 'INITIAL_SESSION') update({ signedIn: true });
  });
}

/** The client; startSession ran first (main.tsx). */
export function gatehouse(): GatehouseClient {
  if (!client) throw new Error('the session is not started');
  return client;
}
