// Every kind of email the service sends (docs/email.md), one entry each: its family (which layout its shipped
// template has and which variables it carries), what it is for, and its English words as Mustache text.
// Adding a kind is one entry here; mail/locales/*.ts may translate it (a locale without it falls back to
// these words), and a tenant may replace it per app and locale (gatehouse app email-template set).

/**
 * - challenge: a 6-digit code and/or a link that proves the inbox (`code`, `link`, `code_valid_for`, `link_valid_for`);
 * - notice: something happened to the account; never a secret in it;
 * - invitation: a link to accept an invitation (`link`, `link_valid_for`, `inviter_email`, `role`, and the
 *   tenant's or organisation's name).
 */
export type EmailFamily = 'challenge' | 'notice' | 'invitation';

/** The words of a challenge email. `link_intro_after_code` replaces `link_intro` when a code comes first. */
export interface ChallengeWords {
  subject: string;
  code_intro: string;
  link_intro: string;
  link_intro_after_code: string;
  ignore: string;
}

export interface NoticeWords {
  subject: string;
  body: string;
}

export interface InvitationWords {
  subject: string;
  body: string;
  link_intro: string;
  ignore: string;
}

interface KindOf<F extends EmailFamily, W> {
  family: F;
  description: string;
  /**
   * Variables of this kind beyond every email's (app_name, locale, to, user), with sample values for a preview;
   * a number is a lifetime in seconds, said in the preview's language ("24 hours", "24 heures").
   */
  sample: Record<string, string | number>;
  en: W;
}

export type EmailKindEntry = KindOf<'challenge', ChallengeWords> | KindOf<'notice', NoticeWords> | KindOf<'invitation', InvitationWords>;

const challengeSample = { code: '123456', link: 'https://auth.example.com/v1/email/verify?token=el_sample', code_valid_for: 600, link_valid_for: 86_400 };
const invitationSample = { link: 'https://auth.example.com/console/accept?token=in_sample', link_valid_for: 7 * 86_400, inviter_email: 'a***@example.com', role: 'admin' };

const notice = (description: string, subject: string, body: string, sample: Record<string, string | number> = {}): KindOf<'notice', NoticeWords> => ({
  family: 'notice',
  description,
  sample,
  en: { subject, body },
});

export const EMAIL_KINDS = {
  verify_email: {
    family: 'challenge',
    description: 'sign-up, and any later proof of an unverified address',
    sample: challengeSample,
    en: {
      subject: 'Verify your email for {{app_name}}',
      code_intro: 'Your verification code is:',
      link_intro: 'Open this link to verify your email:',
      link_intro_after_code: 'Or open this link to verify your email:',
      ignore: 'If you did not sign up for {{app_name}}, ignore this email: without this code or link nobody can verify the account.',
    },
  },
  magic_link: {
    family: 'challenge',
    description: 'passwordless sign-in of a verified user',
    sample: { ...challengeSample, link_valid_for: 900 },
    en: {
      subject: 'Sign in to {{app_name}}',
      code_intro: 'Your sign-in code is:',
      link_intro: 'Open this link to sign in:',
      link_intro_after_code: 'Or open this link to sign in:',
      ignore: 'If you did not ask for this email, you can ignore it.',
    },
  },
  password_reset: {
    family: 'challenge',
    description: 'a password reset (POST /v1/password_resets)',
    sample: { ...challengeSample, link_valid_for: 3600 },
    en: {
      subject: 'Reset your password for {{app_name}}',
      code_intro: 'Your password reset code is:',
      link_intro: 'Open this link to choose a new password:',
      link_intro_after_code: 'Or open this link to choose a new password:',
      ignore: 'If you did not ask to reset your password, ignore this email: your password stays as it is.',
    },
  },
  change_email: {
    family: 'challenge',
    description: 'the proof of a new address (POST /v1/me/email), sent to that address',
    sample: challengeSample,
    en: {
      subject: 'Confirm your new email for {{app_name}}',
      code_intro: 'Your confirmation code is:',
      link_intro: 'Open this link to confirm this address:',
      link_intro_after_code: 'Or open this link to confirm this address:',
      ignore: 'If you did not ask to use this address for {{app_name}}, ignore this email: nothing changes without this code or link.',
    },
  },
  password_changed: notice(
    'a password was changed or reset',
    'Your password was changed for {{app_name}}',
    'The password of your {{app_name}} account was just changed, and every other device was signed out.',
  ),
  email_changed: notice(
    'to the old address, once a new one is proven',
    'Your email was changed for {{app_name}}',
    'The email address of your {{app_name}} account was just changed{{#new_email_masked}} to {{new_email_masked}}{{/new_email_masked}}. This address no longer signs in.',
    { new_email_masked: 'n***@example.com' },
  ),
  factor_added: notice(
    'a second factor was added',
    'A second factor was added to your account on {{app_name}}',
    'A second factor (an authenticator app or a passkey) was just added to your {{app_name}} account; signing in now asks for it.',
  ),
  factor_removed: notice(
    'a second factor was removed',
    'A second factor was removed from your account on {{app_name}}',
    'A second factor (an authenticator app or a passkey) was just removed from your {{app_name}} account.',
  ),
  factors_reset: notice(
    "the operator reset the user's second factors",
    'Your second factors were reset on {{app_name}}',
    "Every second factor and recovery code of your {{app_name}} account was just removed by the app's operator; signing in asks for your first factor only.",
  ),
  recovery_codes_renewed: notice(
    'new recovery codes were made',
    'New recovery codes were made for your account on {{app_name}}',
    'A new set of recovery codes was just made for your {{app_name}} account; the earlier codes no longer work.',
  ),
  factor_locked: notice(
    'wrong authenticator codes locked the factor for a while',
    'Wrong authenticator codes were entered for your account on {{app_name}}',
    'Several wrong authenticator codes in a row were just entered to sign in to your {{app_name}} account, after its first step (such as your password) succeeded. ' +
      'Your authenticator now refuses codes for a while, longer after each further wrong one; a recovery code or a passkey still signs you in.',
  ),
  tenant_invitation: {
    family: 'invitation',
    description: "an invitation to a tenant's console",
    sample: { ...invitationSample, tenant_name: 'Acme' },
    en: {
      subject: 'You are invited to manage {{tenant_name}} on {{app_name}}',
      body: '{{#inviter_email}}{{inviter_email}} invites you{{/inviter_email}}{{^inviter_email}}You are invited{{/inviter_email}} to join {{tenant_name}} as {{role}}.',
      link_intro: 'Open this link to accept the invitation:',
      ignore: 'If you do not know {{tenant_name}}, ignore this email: nothing happens without this link.',
    },
  },
  organization_invitation: {
    family: 'invitation',
    description: 'an invitation to an organisation of the app',
    sample: { ...invitationSample, organization_name: 'Acme Research', role: 'member' },
    en: {
      subject: 'You are invited to join {{organization_name}} on {{app_name}}',
      body: '{{#inviter_email}}{{inviter_email}} invites you{{/inviter_email}}{{^inviter_email}}You were invited{{/inviter_email}} to join the organization {{organization_name}} on {{app_name}} as {{role}}.',
      link_intro: 'Open this link, then sign in with this email address to accept:',
      ignore: 'If you do not know this organization, ignore this email: nothing happens without this link and this address.',
    },
  },
} satisfies Record<string, EmailKindEntry>;

export type EmailKind = keyof typeof EMAIL_KINDS;
export const EMAIL_KIND_NAMES = Object.keys(EMAIL_KINDS) as EmailKind[];
export const isEmailKind = (name: string): name is EmailKind => Object.hasOwn(EMAIL_KINDS, name);
export const kindEntry = (kind: EmailKind): EmailKindEntry => EMAIL_KINDS[kind];

/** The words a locale gives a kind of each family. */
export type WordsOf<K extends EmailKind> = (typeof EMAIL_KINDS)[K]['en'];

/** The words every email of a family shares, per locale. */
export interface CommonWords {
  /** "The code is valid for {{code_valid_for}}." */
  code_validity: string;
  link_validity: string;
  /** The last paragraph of every notice: what to do if it was not the reader. */
  notice_advice: string;
}

/** A shipped locale's translation: its common words, and any kinds it translates (the others fall back to English). */
export interface LocaleWords {
  common: CommonWords;
  kinds: { [K in EmailKind]?: WordsOf<K> };
}
