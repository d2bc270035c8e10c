// The addresses of the user pages of an app, and the user object as GET /v1/users/{id} answers it (docs/users.md).
import type { Ok } from '@gatehouse/api-types';

export type User = Ok<'getUser'>;

export const usersHref = (tenantId: string, appId: string) => `/t/${tenantId}/apps/${appId}/users`;
export const userHref = (tenantId: string, appId: string, userId: string) => `${usersHref(tenantId, appId)}/${userId}`;
