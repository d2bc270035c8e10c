// The console's shared state: whether someone is signed in, what they may do (GET /v1/console/session: an
// operator? may create tenants?) and the tenants they belong to (with their role, from GET /v1/tenants). Pages keep their own data in their own hooks (ui/load.ts); only this is shared.
import type { Ok } from '@gatehouse/api-types';
import { useEffect, useState } from 'preact/hooks';

/** A tenant as GET /v1/tenants lists it, with the signed-in person's role in it. */
export type Tenant = Ok<'listTenants'>['tenants'][number];

export type Role = Tenant['role'];

/** What the signed-in person may do beyond their tenants' roles (GET /v1/console/session). */
export type ConsoleSession = Ok<'getConsoleSession'>;

export interface State {
  signedIn: boolean;
  /** Undefined until loaded after sign-in. */
  tenants: Tenant[] | undefined;
  /** Undefined until loaded after sign-in (once, with the tenants). */
  session: ConsoleSession | undefined;
}

export const state: State = { signedIn: false, tenants: undefined, session: undefined };
const listeners = new Set<() => void>();

export function update(patch: Partial<State>): void {
  Object.assign(state, patch);
  for (const listener of [...listeners]) listener();
}

/** Re-renders the component when the state changes. */
export function useStore(): State {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((n) => n + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return state;
}

/** Whether a member of this role may write (owner, admin); a viewer reads only. */
export const canWrite = (role: Role | undefined) => role === 'owner' || role === 'admin';

/** The roles, as a member picks one. */
export const ROLES: [Role, string][] = [
  ['viewer', 'Viewer: reads only'],
  ['admin', 'Admin: everything but deleting the tenant and owners'],
  ['owner', 'Owner: everything'],
];
