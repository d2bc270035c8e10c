// The addresses of the user pages of an app, and the user object as GET /v1/users answers it (docs/users.md).
export interface User {
  id: string;
  email: string | null;
  email_verified: boolean;
  is_bot: boolean;
  public_metadata: Record<string, unknown>;
  private_metadata: Record<string, unknown>;
  unsafe_metadata: Record<string, unknown>;
  banned: boolean;
  external_id: string | null;
  locale?: string | null;
  created_at: string;
  updated_at: string;
}

export const usersHref = (tenantId: string, appId: string) => `/t/${tenantId}/apps/${appId}/users`;
export const userHref = (tenantId: string, appId: string, userId: string) => `${usersHref(tenantId, appId)}/${userId}`;
