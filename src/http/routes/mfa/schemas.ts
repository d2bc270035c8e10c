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
});

export const FactorList = Type.Object({ factors: Type.Array(Factor), recovery_codes_remaining: Type.Integer() });

export const RecoveryCodes = Type.Array(Type.String(), { description: 'single-use, shown once: xxxxx-xxxxx' });
