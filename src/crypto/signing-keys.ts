import { createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { open, seal } from './envelope.js';

const generateKeyPairAsync = promisify(generateKeyPair);

export interface PublicJwk {
  kty: 'RSA';
  kid: string;
  use: 'sig';
  alg: 'RS256';
  n: string;
  e: string;
}

export interface GeneratedSigningKey {
  publicJwk: PublicJwk;
  privateKeySealed: string;
}

/** A new RSA-2048 key pair; the private half leaves this function only sealed with MASTER_KEY. */
export async function generateSigningKey(masterKey: Buffer, kid: string): Promise<GeneratedSigningKey> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
  const jwk = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  return {
    publicJwk: { kty: 'RSA', kid, use: 'sig', alg: 'RS256', n: jwk.n, e: jwk.e },
    privateKeySealed: seal(masterKey, pem, signingKeyBinding(kid)),
  };
}

export function openPrivateKey(masterKeys: Buffer | readonly Buffer[], kid: string, sealed: string): KeyObject {
  return createPrivateKey(open(masterKeys, sealed, signingKeyBinding(kid)));
}

/** The associated data that binds a sealed signing key to its kid. */
export const signingKeyBinding = (kid: string) => `signing-key:${kid}`;

export function publicKeyFromJwk(jwk: PublicJwk): KeyObject {
  return createPublicKey({ key: { kty: jwk.kty, n: jwk.n, e: jwk.e }, format: 'jwk' });
}
