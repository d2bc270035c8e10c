import { Type, type Static } from '@sinclair/typebox';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

// A WebAuthn credential as JSON (PublicKeyCredential.toJSON(), or @simplewebauthn/browser's output):
// binary fields base64url. The library checks the inner fields; the schema bounds the sizes.

const B64u = (maxLength: number) => Type.String({ maxLength, pattern: '^[A-Za-z0-9_-]*$' });

export const PasskeyCredential = Type.Object({
  id: B64u(1024),
  rawId: B64u(1024),
  type: Type.Literal('public-key'),
  response: Type.Record(Type.String(), Type.Unknown(), { description: 'clientDataJSON, attestationObject / authenticatorData, signature, userHandle (base64url)' }),
  clientExtensionResults: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
}, { title: 'PasskeyCredential' });

export const asRegistration = (c: Static<typeof PasskeyCredential>) => ({ clientExtensionResults: {}, ...c }) as unknown as RegistrationResponseJSON;
export const asAssertion = (c: Static<typeof PasskeyCredential>) => ({ clientExtensionResults: {}, ...c }) as unknown as AuthenticationResponseJSON;

export const CeremonyOptions = Type.Object({
  challenge_id: Type.String({ format: 'uuid' }),
  options: Type.Record(Type.String(), Type.Unknown(), { description: 'PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON: pass to navigator.credentials (parse with PublicKeyCredential.parse*OptionsFromJSON)' }),
}, { title: 'PasskeyOptions' });
