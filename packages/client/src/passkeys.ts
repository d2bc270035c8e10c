// The browser's half of a passkey ceremony: Gatehouse's options in, the credential as JSON out. The work
// is @simplewebauthn/browser's (it parses and serializes the JSON forms where the browser cannot yet), loaded
// on first use, so a page that never touches a passkey never downloads it.
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import type { Body } from './types.js';

/** The credential JSON the passkey routes take (RegistrationResponseJSON or AuthenticationResponseJSON). */
export type PasskeyCredential = Body<'registerPasskey'>['credential'];
/** Creation or request options as Gatehouse answers them (PublicKeyCredential*OptionsJSON, typed loosely by the schema). */
type OptionsJson = Record<string, unknown>;

const library = () => import('@simplewebauthn/browser');

/** navigator.credentials.create for registration options: a new passkey on this device. */
export async function createPasskey(options: OptionsJson): Promise<PasskeyCredential> {
  const { startRegistration } = await library();
  return (await startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON })) as unknown as PasskeyCredential;
}

/** navigator.credentials.get for request options: the device signs the challenge with one of its passkeys. */
export async function getPasskey(options: OptionsJson): Promise<PasskeyCredential> {
  const { startAuthentication } = await library();
  return (await startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON })) as unknown as PasskeyCredential;
}
