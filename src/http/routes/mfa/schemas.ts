import { Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../../schemas.js';

// Shapes of the second-factor routes (docs/mfa.md).

export const FriendlyName = Type.String({ minLength: 1, maxLength: 100 });

export const Factor = Type.Object({
  factor_id: Uuid,
  type: Type.Union([Type.Literal('totp'), Type.Literal('webauthn')]),
  friendly_name: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('unverified'), Type.Literal('verified')]),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()]),
}, { title: 'Factor' });

export const FactorList = Type.Object({ factors: Type.Array(Factor), recovery_codes_remaining: Type.Integer() }, { title: 'FactorList' });

export const RecoveryCodes = Type.Array(Type.String(), { description: 'single-use, shown once: xxxxx-xxxxx' });

/** A factor just verified: fresh recovery codes (shown once) and the session's new aal2 access token. */
export const EnrolledFactor = Type.Object(
  { factor: Factor, recovery_codes: RecoveryCodes, access_token: Type.String(), expires_at: Type.String({ format: 'date-time' }) },
  { title: 'EnrolledFactor' },
);
