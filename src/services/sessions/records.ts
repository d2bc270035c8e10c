import { Type, type Static } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../wire-formats.js';

// docs/users.md: a user's session as the server sees it (user-sessions.ts), declared once: the route's
// schema (http/routes/user-sessions.ts) and the service's type.

export const UserSessionRecord = Type.Object({
  session_id: Uuid,
  created_at: Timestamp,
  /** As GET /v1/me/sessions shows it. */
  last_used_at: Type.String({ format: 'date-time', description: 'The last refresh, else the sign-in' }),
  expires_at: Type.String({ format: 'date-time', description: 'When its refresh token stops working unless refreshed again' }),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  /** [] for a session older than migration 0024. */
  amr: Type.Array(Type.String(), { description: 'How it was opened (RFC 8176: pwd, email, oauth, sso, bot, token, otp, recovery, webauthn); [] for a session older than the field' }),
  /** mfa/assurance.ts's Aal, from the amr (aalOf). */
  aal: Type.Union([Type.Literal('aal1'), Type.Literal('aal2')], { description: 'aal2 when a second factor was used' }),
}, { title: 'UserSession' });

export type UserSession = Static<typeof UserSessionRecord>;
