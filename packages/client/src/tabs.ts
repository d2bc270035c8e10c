// What the tabs of one browser share so that a refresh happens once: a Web Lock around it (only one tab
// refreshes at a time; a tab that finds it held waits for the holder's result instead), a BroadcastChannel
// that carries that result to the others (with Bearer tokens kept in memory, the new tokens), and a small
// marker in localStorage (the new expiry) for a tab that comes later. localStorage reaches other tabs
// asynchronously in Chromium, so the channel, not the marker, is the signal. Refresh tokens rotate and a
// reused one can revoke the session (docs/auth.md): two tabs must never send the same one.
// Outside a browser (Node) the lock is a promise chain of this process and nothing is shared.
import type { Session } from './types.js';

/** The non-secret part of the session every tab may read: who, which session, until when. */
export interface Marker {
  user_id: string;
  session_id: string;
  expires_at: number;
}

export type TabMessage = { type: 'session'; session: Session | null; event: 'SIGNED_IN' | 'SIGNED_OUT' | 'TOKEN_REFRESHED' | 'USER_UPDATED' };

export interface Tabs {
  /** Runs `work` while no other tab (or call of this process) runs work under the same name. */
  withLock<T>(work: () => Promise<T>): Promise<T>;
  /** Runs `work` under the lock if no other tab holds it now; `{ ran: false }` when one does. */
  tryLock<T>(work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
  readMarker(): Marker | undefined;
  writeMarker(marker: Marker | undefined): void;
  post(message: TabMessage): void;
  onMessage(listener: (message: TabMessage) => void): void;
  close(): void;
}

interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
  request<T>(name: string, options: { ifAvailable: true }, callback: (lock: unknown) => Promise<T>): Promise<T>;
}

export function createTabs(name: string, shared: boolean): Tabs {
  const g = globalThis as { navigator?: { locks?: LockManagerLike }; localStorage?: Storage; BroadcastChannel?: typeof BroadcastChannel };
  const locks = shared ? g.navigator?.locks : undefined;
  let storage: Storage | undefined;
  try {
    storage = shared ? g.localStorage : undefined;
  } catch {
    storage = undefined; // blocked (sandboxed frame, privacy settings): the lock and the channel still work
  }
  const channel = shared && g.BroadcastChannel ? new g.BroadcastChannel(name) : undefined;
  const markerKey = `${name}.marker`;
  let chain: Promise<unknown> = Promise.resolve();

  return {
    withLock(work) {
      if (locks) return locks.request(name, work);
      const run = chain.then(work, work);
      chain = run.catch(() => undefined);
      return run;
    },
    tryLock(work) {
      // Without Web Locks (Node) there is no other tab: this process's own calls queue as in withLock.
      if (!locks) return this.withLock(async () => ({ ran: true as const, value: await work() }));
      return locks.request(name, { ifAvailable: true }, async (lock) => (lock ? { ran: true as const, value: await work() } : { ran: false as const }));
    },
    readMarker() {
      try {
        const text = storage?.getItem(markerKey);
        return text ? (JSON.parse(text) as Marker) : undefined;
      } catch {
        return undefined;
      }
    },
    writeMarker(marker) {
      try {
        if (marker) storage?.setItem(markerKey, JSON.stringify({ user_id: marker.user_id, session_id: marker.session_id, expires_at: marker.expires_at }));
        else storage?.removeItem(markerKey);
      } catch {
        // storage full or blocked: the channel still tells the other tabs
      }
    },
    post(message) {
      channel?.postMessage(message);
    },
    onMessage(listener) {
      if (channel) channel.onmessage = (event: MessageEvent<TabMessage>) => listener(event.data);
    },
    close() {
      channel?.close();
    },
  };
}
