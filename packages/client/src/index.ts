// @gatehouse/client: Gatehouse in a browser or in Node, from one entry point.
//   const gatehouse = createClient({ url, publishableKey });
//   await gatehouse.auth.signInWithPassword({ email, password });
//   await gatehouse.from<Note>('notes').insert({ title: 'Hello' });
//   await gatehouse.storage.from('avatars').upload('me.png', file, { onProgress });
import { AuthApi } from './auth.js';
import { StorageApi } from './buckets.js';
import { MfaRequiredError, type MfaFactor } from './errors.js';
import { Http } from './http.js';
import { takeLanding, type Landing } from './landing.js';
import { SessionStore } from './session.js';
import { takeSsoNonce } from './sso.js';
import { OrganizationsApi } from './organizations.js';
import { memoryStorage, type StorageAdapter } from './storage.js';
import { TableApi, type RowData } from './tables.js';
import { createTabs } from './tabs.js';
import type { Ok, TableStorage } from './types.js';

export interface ClientOptions {
  /** Gatehouse's base URL (its PUBLIC_BASE_URL, or the app's verified domain). */
  url: string;
  /** The app's publishable key (`pk_...`). */
  publishableKey: string;
  /**
   * `'cookies'` (the default in browsers): the API's HttpOnly cookies hold the session and no script ever
   * sees a token; the page must be same-site with the API (docs/browser.md). Otherwise Bearer tokens:
   * `'memory'` (the default in Node: gone when the page or process ends) or a storage of your own
   * (`localStorage`, AsyncStorage, a file).
   */
  storage?: 'cookies' | 'memory' | StorageAdapter;
  /** Where a Bearer session is stored; `gatehouse.<publishable key>` by default. */
  storageKey?: string;
  /** Refresh a minute before the access token expires (default true). */
  autoRefreshToken?: boolean;
  /** Read an SSO token, an email link's or OAuth's landing, or a reset token from the page's address (default true in browsers). */
  detectSessionInUrl?: boolean;
  /** Share refreshes and sign-ins with the other tabs (Web Locks, BroadcastChannel; default true in browsers). */
  multiTab?: boolean;
  /** Where the browser's proof-of-work worker is served, when no bundler placed `pow-worker.js` beside the client. */
  powWorkerUrl?: string | URL;
  /** A fetch of your own (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
  /** The clock, in ms (tests). */
  now?: () => number;
}

export interface GatehouseClient {
  auth: AuthApi;
  /** A custom table's rows, by table id or name, typed as `T`. */
  from<T extends object = RowData>(table: string): TableApi<T>;
  /** The app's tables (a session may list them) and their storage figures. */
  tables: { list(): Promise<Ok<'listTables'>['tables']>; storage(): Promise<TableStorage> };
  storage: StorageApi;
  /** The user's organisations, members, invitations, the active organisation and its rows (docs/organizations.md). */
  organizations: OrganizationsApi;
  /** Stops the refresh timer and leaves the tabs' channel. */
  close(): void;
}

/** The one entry point: a client for one app of one Gatehouse. */
export function createClient(options: ClientOptions): GatehouseClient {
  const browser = typeof document !== 'undefined';
  const cookies = (options.storage ?? (browser ? 'cookies' : 'memory')) === 'cookies';
  const storage = cookies ? undefined : options.storage === 'memory' || options.storage === undefined ? memoryStorage() : (options.storage as StorageAdapter);
  const key = options.storageKey ?? `gatehouse.${options.publishableKey}`;
  const http = new Http({
    url: options.url.replace(/\/+$/, ''),
    publishableKey: options.publishableKey,
    cookies,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
  });
  const store = new SessionStore({
    cookies,
    storage,
    key,
    // Cookie and Bearer clients of one app on one page keep apart: neither may take the other's session.
    tabs: createTabs(`${key}.${cookies ? 'cookies' : 'tokens'}`, options.multiTab ?? browser),
    now: options.now ?? Date.now,
    autoRefresh: options.autoRefreshToken ?? true,
    refresher: (refreshToken) => http.json('POST', '/v1/tokens/session', refreshToken ? { body: { refresh_token: refreshToken } } : {}),
  });
  http.session = store;

  /** Whether this browser has a session of this app now (with cookies, the cookie may hold one the page never saw). */
  const liveSession = async (): Promise<boolean> => {
    if (store.current) return (await store.fresh().catch(() => store.current)) !== null;
    return cookies && browser && (await store.refresh(true).catch(() => null)) !== null;
  };

  let landing: Landing | undefined;
  let loaded!: () => void;
  const ready = new Promise<void>((done) => (loaded = done));
  http.ready = ready;
  const auth = new AuthApi(http, store, ready, options.powWorkerUrl, `${key}.sso_nonce`);
  auth.landing = ready.then(() => landing);
  void (async () => {
    await store.load();
    landing = (options.detectSessionInUrl ?? browser) ? takeLanding() : undefined;
    if (landing?.type === 'sso') {
      // Login CSRF: a token this tab did not ask for is someone else's sign-in, never exchanged; over a
      // live session the page asks the person first (the token may be another person's).
      const sso = landing;
      const nonce = takeSsoNonce(auth.ssoNonceKey);
      if (nonce === undefined) sso.refused = 'not_requested';
      else if (await liveSession()) Object.assign(sso, { nonce, refused: 'signed_in' });
      else {
        await auth.exchangeSsoToken(sso.token, { nonce }).catch((error: unknown) => {
          // The account has a second factor: the page asks for it, as after an email link's landing.
          if (error instanceof MfaRequiredError) landing = { type: 'mfa', mfaToken: error.mfaToken, factors: error.factors };
        });
      }
    }
    // A link or OAuth hands over the mfa_token alone: the challenge says which factors may complete it.
    else if (landing?.type === 'mfa' && !landing.factors) {
      const mfa = landing;
      await http
        .json<{ factors: MfaFactor[] }>('POST', '/v1/mfa/challenge', { body: { mfa_token: mfa.mfaToken } })
        .then((challenge) => void (mfa.factors = challenge.factors))
        .catch(() => undefined); // a dead token: verifyMfa will say so
    }
    else if (landing?.type === 'link' || (landing?.type === 'oauth' && !landing.error)) await store.refresh(true).catch(() => null);
    // With cookies and no sign of a session in this browser, the cookie itself may still hold one.
    else if (cookies && browser && !store.current) await store.refresh(true).catch(() => null);
  })()
    .catch(() => undefined) // an unreadable storage is no session
    .finally(loaded);

  return {
    auth,
    from: <T extends object = RowData>(table: string) => new TableApi<T>(http, table),
    tables: {
      list: async () => (await http.json<Ok<'listTables'>>('GET', '/v1/tables', { auth: true })).tables,
      storage: () => http.json('GET', '/v1/tables/storage', { auth: true }),
    },
    storage: new StorageApi(http),
    organizations: new OrganizationsApi(http, store, auth),
    close: () => store.close(),
  };
}

export { GatehouseError, isGatehouseError } from '@gatehouse/errors';
export { MfaRequiredError, type MfaFactor } from './errors.js';
export type { ErrorCode } from '@gatehouse/api-types';
export { memoryStorage, type StorageAdapter } from './storage.js';
export type { AuthApi, OAuthProvider, OAuthProviderInfo, SignUpResult } from './auth.js';
export type { AccountApi } from './account.js';
export type { Factor, FactorAdded, FactorList, MfaApi, TotpEnrollment } from './factors.js';
export type { BucketApi, StorageApi, UploadOptions } from './buckets.js';
export type { ActiveOrganization, Invitation, Membership, MyOrganization, Organization, OrganizationsApi } from './organizations.js';
export type { Landing } from './landing.js';
export type { Op, Page, Query, Row, RowData, TableApi } from './tables.js';
export type { UploadBody, UploadProgress } from './upload-types.js';
export type { AuthEvent, AuthListener, Bucket, Challenge, DeviceSession, Session, StoredObject, Table, TableStorage, Tokens, User } from './types.js';
