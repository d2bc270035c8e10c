// The nonce of an SSO hop this tab started (login CSRF, docs/sso.md): made before the page leaves for the
// other app's bridge, kept in this tab's sessionStorage (which outlives the navigation away and back), and
// taken once when the page lands with a token. A token that arrives with no nonce kept was not asked for.

/** 256 random bits, base64url: what the bridge and the exchange take as `nonce`. */
function randomNonce(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function tabStorage(): Storage | undefined {
  try {
    return (globalThis as { sessionStorage?: Storage }).sessionStorage;
  } catch {
    return undefined; // storage blocked by the browser's settings
  }
}

/** A new nonce for a hop, kept under `key` (the previous one, if any, is replaced: only the last hop counts). */
export function newSsoNonce(key: string): string {
  const storage = tabStorage();
  if (!storage) throw new Error('signInWithSso needs a browser tab (sessionStorage)');
  const nonce = randomNonce();
  storage.setItem(key, nonce);
  return nonce;
}

/** The nonce kept under `key`, removed so that it serves one landing only; undefined when none. */
export function takeSsoNonce(key: string): string | undefined {
  const storage = tabStorage();
  const nonce = storage?.getItem(key) ?? undefined;
  if (nonce !== undefined) storage!.removeItem(key);
  return nonce;
}
