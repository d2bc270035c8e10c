// client.organizations (docs/organizations.md): the signed-in user's organisations, their members and
// invitations, accepting one, the session's active organisation, and the active organisation's rows.
import type { AuthApi } from './auth.js';
import type { Http } from './http.js';
import type { SessionStore } from './session.js';
import { TableApi, type RowData } from './tables.js';
import type { Ok, Session } from './types.js';

export type Organization = Ok<'createOrganization'>;
/** An organisation of the user's, with the user's role in it. */
export type MyOrganization = Ok<'listMyOrganizations'>['organizations'][number];
export type Membership = Ok<'listOrganizationMembers'>['members'][number];
export type Invitation = Ok<'createOrganizationInvitation'>;
/** The session's active organisation as `/v1/me` says it (null: none). */
export type ActiveOrganization = NonNullable<Ok<'getMe'>['organization']>;

const at = (organizationId: string, rest = '') => `/v1/organizations/${encodeURIComponent(organizationId)}${rest}`;

/** The organisation claim of an access token (`org_id`), read without verifying it (the server checks every request). */
function orgIdOf(token: string | null): string | undefined {
  const part = token?.split('.')[1];
  if (!part) return undefined;
  try {
    const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
    const claims = JSON.parse(atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4))) as { org_id?: unknown };
    return typeof claims.org_id === 'string' ? claims.org_id : undefined;
  } catch {
    return undefined;
  }
}

export class OrganizationsApi {
  constructor(
    private readonly http: Http,
    private readonly store: SessionStore,
    private readonly auth: AuthApi,
  ) {}

  /** Creates an organisation; the signed-in user becomes its `owner`. */
  create(input: { name: string; slug?: string }): Promise<Organization> {
    return this.http.json('POST', '/v1/organizations', { auth: true, body: input });
  }

  /** The signed-in user's organisations, each with their role. */
  async list(): Promise<MyOrganization[]> {
    return (await this.http.json<Ok<'listMyOrganizations'>>('GET', '/v1/me/organizations', { auth: true })).organizations;
  }

  get(organizationId: string): Promise<Organization> {
    return this.http.json('GET', at(organizationId), { auth: true });
  }

  /** One page of the organisation's members (follow `next_cursor` with `cursor`). */
  members(organizationId: string, page: { limit?: number; cursor?: string } = {}): Promise<Ok<'listOrganizationMembers'>> {
    return this.http.json('GET', at(organizationId, '/members'), { auth: true, query: page });
  }

  /** Changes a member's role (`org:members:manage`). */
  updateMember(organizationId: string, userId: string, role: string): Promise<Membership> {
    return this.http.json('PATCH', at(organizationId, `/members/${encodeURIComponent(userId)}`), { auth: true, body: { role } });
  }

  /** Removes a member (`org:members:manage`; anyone may remove themself: leaving). */
  async removeMember(organizationId: string, userId: string): Promise<void> {
    await this.http.json('DELETE', at(organizationId, `/members/${encodeURIComponent(userId)}`), { auth: true });
  }

  /** Invitations (`org:invitations:manage`): emailed with a link to `redirectTo` carrying `?invitation_token=`. */
  readonly invitations = {
    create: (organizationId: string, input: { email: string; role: string; redirectTo?: string }): Promise<Invitation> =>
      this.http.json('POST', at(organizationId, '/invitations'), {
        auth: true,
        body: { email: input.email, role: input.role, ...(input.redirectTo !== undefined && { redirect_url: input.redirectTo }) },
      }),
    list: async (organizationId: string, page: { status?: 'pending' | 'accepted' | 'revoked'; limit?: number; cursor?: string } = {}): Promise<Ok<'listOrganizationInvitations'>> =>
      this.http.json('GET', at(organizationId, '/invitations'), { auth: true, query: page }),
    revoke: async (organizationId: string, invitationId: string): Promise<void> => {
      await this.http.json('DELETE', at(organizationId, `/invitations/${encodeURIComponent(invitationId)}`), { auth: true });
    },
    /** The pending invitations for the signed-in user's verified email. */
    mine: async (): Promise<Invitation[]> => (await this.http.json<Ok<'listMyInvitations'>>('GET', '/v1/me/invitations', { auth: true })).invitations,
  };

  /**
   * Accepts an invitation with the emailed link's token (`?invitation_token=`) or its id (from `invitations.mine()`),
   * by a session whose verified email is the invitation's: the new membership.
   */
  accept(input: { token: string } | { invitationId: string }): Promise<Membership> {
    const body = 'token' in input ? { token: input.token } : { invitation_id: input.invitationId };
    return this.http.json('POST', '/v1/invitations/accept', { auth: true, body });
  }

  /**
   * Makes `organizationId` the session's active organisation (null: none), then refreshes the session so the
   * access token carries `org_id`, `org_slug`, `org_role` and `org_permissions` (TOKEN_REFRESHED, in every tab).
   */
  async setActive(organizationId: string | null): Promise<Session | null> {
    await this.http.json('POST', '/v1/sessions/active_organization', { auth: true, body: { organization_id: organizationId } });
    return this.store.refresh(true);
  }

  /** The session's active organisation with the user's role and permissions, or null (`GET /v1/me`'s `organization`). */
  async getActive(): Promise<ActiveOrganization | null> {
    return (await this.http.json<Ok<'getMe'>>('GET', '/v1/me', { auth: true })).organization ?? null;
  }

  /**
   * A custom table's rows of the active organisation: queries see its rows only (as every query of a session
   * with an active organisation does), and `insert` writes a row the organisation owns (`created_by` you).
   */
  from<T extends object = RowData>(table: string): TableApi<T> {
    return new TableApi<T>(this.http, table, async () => {
      const organizationId = orgIdOf(await this.auth.getToken());
      if (!organizationId) throw new Error('no active organisation: call organizations.setActive(organizationId) first');
      return organizationId;
    });
  }
}
