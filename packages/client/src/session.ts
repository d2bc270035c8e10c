// The session the client keeps for its caller: who is signed in and until when, the tokens when they are
// Bearer tokens, auth-state events, and a refresh a minute before expiry that runs once across tabs.
import { isGatehouseError } from '@gatehouse/errors';
import { tokenTimes } from './jwt.js';
import type { StorageAdapter } from './storage.js';
import type { Tabs, TabMessage } from './tabs.js';
import type { AuthEvent, AuthListener, Session, Tokens } from './types.js';

/** Refresh this long before the access token expires (and treat it as expired from then on). */
export const REFRESH_MARGIN_MS = 60_000;
/** How long a tab that found another one refreshing waits for its result before refreshing itself. */
const OTHER_TAB_WAIT_MS = 5_000;
/** After a refresh that could not reach Gatehouse, try again this much later. */
const RETRY_MS = 10_000;

export interface SessionOptions {
  /** Cookies (same site): the tokens stay in the API's HttpOnly cookies. Else Bearer tokens, kept in `storage`. */
  cookies: boolean;
  storage: StorageAdapter | undefined;
  key: string;
  tabs: Tabs;
  now: () => number;
  autoRefresh: boolean;
  /** POST /v1/tokens/session: with the refresh token (Bearer) or none (the cookie). */
  refresher: (refreshToken: string | undefined) => Promise<Tokens>;
}

export class SessionStore {
  /** Cookie mode: the last access token Gatehouse answered, in memory only (token()). */
  private cookieToken: { value: string; sessionId: string; expiresAt: number } | undefined;
  private session: Session | null = null;
  private readonly listeners = new Set<AuthListener>();
  private inflight: Promise<Session | null> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  /** Refreshes waiting for another tab's result. */
  private readonly waiters = new Set<() => void>();

  constructor(private readonly o: SessionOptions) {
    o.tabs.onMessage((message) => void this.fromTab(message));
  }

  /** The session as it stands (no network). */
  get current(): Session | null {
    return this.session;
  }

  /** Reads what an earlier page load or run left: the stored Bearer session, or (cookies) the tabs' marker. */
  async load(): Promise<Session | null> {
    if (this.o.cookies) {
      const marker = this.o.tabs.readMarker();
      this.session = marker && marker.expires_at > this.o.now() ? { ...marker } : null;
    } else {
      const text = await this.o.storage?.getItem(this.o.key);
      this.session = text ? (JSON.parse(text) as Session) : null;
    }
    this.schedule();
    return this.session;
  }

  /** Adds a listener; it hears INITIAL_SESSION first, then every change. */
  subscribe(listener: AuthListener, initial: Promise<unknown>): () => void {
    this.listeners.add(listener);
    void initial.then(() => this.listeners.has(listener) && listener('INITIAL_SESSION', this.session));
    return () => this.listeners.delete(listener);
  }

  /** A sign-in's tokens become the session (SIGNED_IN), here and in the other tabs. */
  async signedIn(tokens: Tokens): Promise<Session> {
    const session = this.fromTokens(tokens);
    await this.set(session, 'SIGNED_IN', true);
    return session;
  }

  /**
   * A new access token for the same session (confirming a second factor makes it aal2): TOKEN_REFRESHED,
   * here and in the other tabs. The refresh token is unchanged; with cookies the answer renewed the cookie.
   */
  async renewed(accessToken: string): Promise<void> {
    if (!this.session) return;
    const session: Session = { ...this.session, expires_at: this.expiry(accessToken) };
    if (!this.o.cookies) session.access_token = accessToken;
    await this.set(session, 'TOKEN_REFRESHED', true);
  }

  /** The session is over (sign-out, deletion, a refused refresh): SIGNED_OUT here and in the other tabs. */
  async signedOut(): Promise<void> {
    this.cookieToken = undefined;
    if (this.session === null && !this.o.tabs.readMarker()) return;
    await this.set(null, 'SIGNED_OUT', true);
  }

  /** The user changed (email, password): USER_UPDATED. */
  updated(): void {
    this.emit('USER_UPDATED');
    this.o.tabs.post({ type: 'session', session: this.shareable(this.session), event: 'USER_UPDATED' });
  }

  /** The session, refreshed first when it expires within the margin. Null when signed out. */
  async fresh(): Promise<Session | null> {
    const session = this.session;
    if (session && session.expires_at - REFRESH_MARGIN_MS <= this.o.now()) return this.refresh();
    return session;
  }

  /**
   * Refreshes once, whoever asks: calls of this page share one request, and tabs take turns under a Web
   * Lock, the later ones adopting what the first one got instead of spending the same refresh token again.
   * Answers the new session, or null when Gatehouse refused it (signed out). `force` refreshes even when
   * another tab just did (a cookie sign-in this page has not seen, such as an email link's).
   */
  refresh(force = false): Promise<Session | null> {
    if (this.inflight) return this.inflight;
    const before = this.session;
    this.inflight = (async () => {
      // The first tab to ask refreshes; a tab that finds the lock held waits for that tab's result, which
      // arrives over the channel (localStorage reaches other tabs late, so it is not the signal).
      const first = await this.o.tabs.tryLock(() => this.refreshHolding(before, force));
      if (first.ran) return first.value;
      const theirs = await this.changeFrom(before, OTHER_TAB_WAIT_MS);
      if (theirs !== undefined) return theirs;
      return this.o.tabs.withLock(() => this.refreshHolding(before, force));
    })().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  /** The refresh itself, under the lock: unless another tab already did it, one request. */
  private async refreshHolding(before: Session | null, force: boolean): Promise<Session | null> {
    const adopted = force ? undefined : await this.adopt(before);
    if (adopted !== undefined) return adopted;
    let tokens: Tokens;
    try {
      tokens = await this.o.refresher(this.o.cookies ? undefined : this.session?.refresh_token);
    } catch (error) {
      if (isGatehouseError(error) && (error.status === 401 || error.status === 403)) {
        // Another tab may have rotated it a moment ago and told us: keep what it sent.
        if (this.session && this.session !== before && this.session.expires_at > this.o.now()) return this.session;
        await this.signedOut();
        return null;
      }
      throw error;
    }
    const session = this.fromTokens(tokens);
    await this.set(session, before ? 'TOKEN_REFRESHED' : 'SIGNED_IN', true);
    return session;
  }

  /** The session once another tab changes it from `before` (undefined if none does within `ms`). */
  private changeFrom(before: Session | null, ms: number): Promise<Session | null | undefined> {
    if (this.session !== before) return Promise.resolve(this.session);
    return new Promise((resolve) => {
      const done = (value: Session | null | undefined) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(value);
      };
      const check = () => this.session !== before && done(this.session);
      const timer = setTimeout(() => done(undefined), ms);
      this.waiters.add(check);
    });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.o.tabs.close();
  }

  /** What another tab did while this one waited for the lock; undefined when it did nothing. */
  private async adopt(before: Session | null): Promise<Session | null | undefined> {
    if (!before) return undefined;
    if (this.o.cookies) {
      const marker = this.o.tabs.readMarker();
      if (!marker) return undefined;
      if (marker.session_id === before.session_id && marker.expires_at > before.expires_at) {
        await this.set({ ...marker }, 'TOKEN_REFRESHED', false);
        return this.session;
      }
      return undefined;
    }
    const text = await this.o.storage?.getItem(this.o.key);
    const stored = text ? (JSON.parse(text) as Session) : null;
    if (stored && stored.refresh_token !== before.refresh_token && stored.session_id === before.session_id) {
      await this.set(stored, 'TOKEN_REFRESHED', false);
      return stored;
    }
    // Tokens kept in memory: another tab's arrive by the channel, and may already have.
    if (this.session && this.session.refresh_token !== before.refresh_token) return this.session;
    return undefined;
  }

  /**
   * A fresh access token for the caller's own API, or null when signed out. Bearer modes answer the kept
   * one (refreshed first when about to expire). With cookies the page keeps no token anywhere a script or
   * another tab could read it: the last one Gatehouse answered stays in this object's memory only, and when
   * it is gone or about to expire a refresh by cookie gets a new one (its answer carries no refresh token).
   */
  async token(): Promise<string | null> {
    const session = await this.fresh();
    if (!session) return null;
    if (!this.o.cookies) return session.access_token ?? null;
    const kept = this.cookieToken;
    if (kept && kept.sessionId === session.session_id && kept.expiresAt - REFRESH_MARGIN_MS > this.o.now()) return kept.value;
    const renewed = await this.refresh(true);
    return renewed && this.cookieToken?.sessionId === renewed.session_id ? this.cookieToken.value : null;
  }

  /** When an access token just received expires, in ms on this machine's clock. */
  private expiry(accessToken: string): number {
    const times = tokenTimes(accessToken);
    // The token's lifetime counted on this machine's clock: a client whose clock is off still refreshes in time.
    const lifetime = times ? (times.exp - times.iat) * 1000 : 15 * 60_000;
    return this.o.now() + lifetime;
  }

  private fromTokens(tokens: Tokens): Session {
    const session: Session = { user_id: tokens.user_id, session_id: tokens.session_id, expires_at: this.expiry(tokens.access_token) };
    if (!this.o.cookies) {
      session.access_token = tokens.access_token;
      session.refresh_token = tokens.refresh_token;
    } else {
      this.cookieToken = { value: tokens.access_token, sessionId: tokens.session_id, expiresAt: session.expires_at };
    }
    return session;
  }

  /** The session as it may cross to other tabs: with cookies, never a token (there is none anyway). */
  private shareable(session: Session | null): Session | null {
    return session && this.o.cookies ? { user_id: session.user_id, session_id: session.session_id, expires_at: session.expires_at } : session;
  }

  private async set(session: Session | null, event: AuthEvent, tell: boolean): Promise<void> {
    this.session = session;
    if (!this.o.cookies) {
      if (session) await this.o.storage?.setItem(this.o.key, JSON.stringify(session));
      else await this.o.storage?.removeItem(this.o.key);
    }
    // Written before the lock is released: the next tab in line reads it at once.
    if (tell) this.o.tabs.writeMarker(session ?? undefined);
    if (tell && event !== 'INITIAL_SESSION') this.o.tabs.post({ type: 'session', session: this.shareable(session), event });
    this.schedule();
    this.emit(event);
    for (const waiter of [...this.waiters]) waiter();
  }

  private async fromTab(message: TabMessage): Promise<void> {
    if (message.type !== 'session') return;
    if (message.event === 'USER_UPDATED') return this.emit('USER_UPDATED');
    // With a persistent storage, the storage is the truth; in memory, the message carries the tokens.
    await this.set(message.session, message.event, false);
  }

  private emit(event: AuthEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event, this.session);
      } catch {
        // a listener's error is the listener's
      }
    }
  }

  /** The automatic refresh: a minute before expiry, once, re-armed by each change. */
  private schedule(): void {
    clearTimeout(this.timer);
    if (!this.o.autoRefresh || this.closed || !this.session) return;
    const delay = Math.max(0, this.session.expires_at - REFRESH_MARGIN_MS - this.o.now());
    this.timer = setTimeout(() => {
      this.refresh().catch(() => {
        // Gatehouse unreachable: keep the session, try again shortly.
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.refresh().catch(() => this.schedule()), RETRY_MS);
        (this.timer as { unref?: () => void }).unref?.();
      });
    }, delay);
    // In Node a pending refresh never keeps the process alive.
    (this.timer as { unref?: () => void }).unref?.();
  }
}
