import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import type { ConsoleCaller } from '../../../services/credentials.js';
import type { routesOf } from '../../route-security.js';
import { errors, ListOf } from '../../schemas.js';
import type { Http } from '../../types.js';

// The lists of a tenant (its apps, members, invitations and API tokens): GET /v1/tenants/{tenant_id}/{name},
// answered whole to any member of the tenant (401 without a Console credential, 404 for another tenant).

export const TenantParams = Type.Object({ tenant_id: Type.String({ minLength: 1, maxLength: 64 }) });

type TenantList<K extends string, T extends TSchema> = { name: K; item: T; operationId: string; summary: string };

/** Declares GET /v1/tenants/{tenant_id}/{name}: `read` is the service that answers `{[name]: [...]}` to the caller. */
export function tenantListRoute<K extends string, T extends TSchema>(
  app: Http,
  deps: Deps,
  route: ReturnType<typeof routesOf>,
  { name, item, operationId, summary }: TenantList<K, T>,
  read: (deps: Deps, caller: ConsoleCaller, tenantId: string) => Promise<{ [P in K]: Static<T>[] }>,
): void {
  // `read`'s type states the answer's type: TypeScript cannot resolve a schema generic in K and T, so the route sees a TSchema.
  const list: TSchema = ListOf(name, item);
  app.get(
    `/v1/tenants/:tenant_id/${name}`,
    route.console({ operationId, summary, params: TenantParams, response: { 200: list, ...errors(401, 404) } }),
    async (request) => read(deps, request.consoleCaller!, request.params.tenant_id),
  );
}
