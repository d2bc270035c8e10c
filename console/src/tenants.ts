import type { Ok } from '@gatehouse/api-types';
import { api } from './api.js';
import { update, type ConsoleSession, type Tenant } from './store.js';

/** Reloads the signed-in person's tenants and roles (GET /v1/tenants; an operator's list is paged). */
export async function refreshTenants(): Promise<Tenant[]> {
  const tenants: Tenant[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const answer = await api<Ok<'listTenants'>>('GET', '/v1/tenants', { query: { limit: 100, cursor } });
    tenants.push(...answer.tenants);
    if (!answer.next_cursor) break;
    cursor = answer.next_cursor;
  }
  update({ tenants });
  return tenants;
}

/** Where opening a tenant leads: its first page. */
export const tenantHome = (tenantId: string) => `/t/${tenantId}/apps`;

/** Reads, once after sign-in, who the person is and what they may do (GET /v1/console/session). */
export async function loadSession(): Promise<ConsoleSession> {
  const session = await api<ConsoleSession>('GET', '/v1/console/session');
  update({ session });
  return session;
}
