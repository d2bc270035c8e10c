// Every request the client sends: the app's publishable key, the session (cookies, or a Bearer token
// refreshed first when it is about to expire), JSON in and out, and a GatehouseError for any other answer.
import { errorFrom, networkError } from './errors.js';
import type { SessionStore } from './session.js';

export interface HttpOptions {
  url: string;
  publishableKey: string;
  cookies: boolean;
  fetch: typeof fetch;
}

export interface CallOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  /** Send the session (and refresh it first when due); a 401 then refreshes once and retries. */
  auth?: boolean;
}

export class Http {
  session!: SessionStore;
  /** Settles once the stored session is loaded: authenticated calls wait for it. */
  ready: Promise<void> = Promise.resolve();

  constructor(readonly o: HttpOptions) {}

  /** The absolute URL of an API path, with its query. */
  url(path: string, query?: CallOptions['query']): string {
    const url = new URL(this.o.url + path);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.href;
  }

  /** The headers of a request: the key, and with Bearer tokens the access token when `auth`. */
  headers(auth: boolean): Record<string, string> {
    const headers: Record<string, string> = { 'x-publishable-key': this.o.publishableKey };
    const token = this.session.current?.access_token;
    if (auth && !this.o.cookies && token) headers.authorization = `Bearer ${token}`;
    return headers;
  }

  /** One JSON call; answers the parsed body of a 2xx or throws GatehouseError. */
  async json<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    const text = await response.text();
    const body = text ? safeParse(text) : undefined;
    if (!response.ok) throw errorFrom(response.status, body, (name) => response.headers.get(name));
    return body as T;
  }

  /** One call answering the raw Response of a 2xx (downloads), or throwing GatehouseError. */
  async raw(method: string, path: string, options: CallOptions & { headers?: Record<string, string> } = {}): Promise<Response> {
    const response = await this.send(method, path, options);
    if (!response.ok) {
      const text = await response.text();
      throw errorFrom(response.status, text ? safeParse(text) : undefined, (name) => response.headers.get(name));
    }
    return response;
  }

  private async send(method: string, path: string, options: CallOptions & { headers?: Record<string, string> }): Promise<Response> {
    if (options.auth) {
      await this.ready;
      await this.session.fresh();
    }
    const attempt = () => {
      const headers = { ...this.headers(Boolean(options.auth)), ...options.headers };
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      return this.fetch(this.url(path, options.query), {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        credentials: this.o.cookies ? 'include' : 'omit',
      });
    };
    const response = await attempt();
    // An access token refused before its time (the server restarted its clock, a key rotated, a tab slept):
    // one refresh, one retry. A refused refresh signs out.
    if (response.status === 401 && options.auth && this.session.current) {
      const renewed = await this.session.refresh(true).catch(() => null);
      if (renewed) return attempt();
    }
    return response;
  }

  /** fetch, with an unreachable server as a GatehouseError of status 0, code `network_error`. */
  async fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.o.fetch(url, init);
    } catch (error) {
      throw networkError((error as Error).message, this.o.url);
    }
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
