import { organizationView, type ActiveOrganization } from '../../../services/organizations/active.js';
import { Type } from '@sinclair/typebox';
import { UserBody } from '../users.js';

// Request and response pieces shared by the sign-up, sign-in and session routes.

export const Email = Type.String({ format: 'email', maxLength: 254, description: 'Compared case-insensitively' });
export const Password = Type.String({ minLength: 8, maxLength: 256 });
export const RedirectUrl = Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], {
  description: 'Absolute URL whose origin is on the app allow-list',
});

/** The signed-in user, as GET /v1/me answers it: a user's own fields of UserBody, never the private ones. */
export const MeBody = Type.Composite(
  [
    Type.Object({ user_id: Type.String({ format: 'uuid' }) }),
    Type.Pick(UserBody, ['email', 'email_verified', 'is_bot', 'public_metadata', 'unsafe_metadata']),
    Type.Object({
      organization: Type.Union(
        [
          Type.Object({
            organization_id: Type.String({ format: 'uuid' }),
            slug: Type.String(),
            role: Type.String(),
            permissions: Type.Array(Type.String()),
          }),
          Type.Null(),
        ],
        { description: "the session's active organisation (POST /v1/sessions/active_organization), null when none" },
      ),
    }),
    Type.Pick(UserBody, ['locale']),
  ],
  { title: 'Me' },
);

/** GET /v1/me's answer: never the private metadata. */
export const meBody = (user: {
  id: string;
  email: string | null;
  emailVerified: boolean;
  isBot: boolean;
  publicMetadata: Record<string, unknown>;
  unsafeMetadata: Record<string, unknown>;
  locale: string | null;
}, organization: ActiveOrganization | null | undefined) => ({
  user_id: user.id,
  email: user.email,
  email_verified: user.emailVerified,
  is_bot: user.isBot,
  public_metadata: user.publicMetadata,
  unsafe_metadata: user.unsafeMetadata,
  organization: organizationView(organization),
  locale: user.locale,
});

export const SessionTokensBody = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  user_id: Type.String({ format: 'uuid' }),
  session_id: Type.String({ format: 'uuid' }),
}, { title: 'SessionTokens' });

/** A first factor's answer when the user has a second factor: no session yet (docs/mfa.md). */
export const MfaRequiredBody = Type.Object(
  {
    mfa_required: Type.Literal(true),
    mfa_token: Type.String({ description: 'single use, 5 minutes: POST /v1/mfa/verify with it and a second factor' }),
    expires_at: Type.String({ format: 'date-time' }),
    factors: Type.Array(
      Type.Object({
        factor_id: Type.String({ format: 'uuid' }),
        type: Type.Union([Type.Literal('totp'), Type.Literal('webauthn')]),
        friendly_name: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  },
  { title: 'MfaRequired', description: 'The user has a second factor: no session yet' },
);

/** What a first factor answers: a session, or an MFA challenge. */
export const SignInAnswerBody = Type.Union([SessionTokensBody, MfaRequiredBody], { title: 'SignInAnswer' });
