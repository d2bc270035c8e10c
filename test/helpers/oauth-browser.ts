import { request as httpRequest } from 'node:http';

// A small browser for OAuth round trips across origins (Gatehouse and the providers, each on its own
// loopback port): a cookie jar per host:port (Path respected, SameSite=Lax/Strict cookies withheld from
// cross-site POSTs), redirects followed by the caller, HTML forms read and submitted as a person would.

interface StoredCookie {
  value: string;
  path: string;
  sameSite: string;
}

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  url: URL;
  location?: URL;
  /** The body parsed as JSON when it is JSON. */
  json?: any;
}

export interface Form {
  action: URL;
  fields: Record<string, string>;
}

const decode = (s: string) => s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');

/** The first form of an HTML page: its action (resolved against the page) and its inputs' values. */
export function readForm(html: string, pageUrl: URL): Form | undefined {
  const tag = /<form\b[^>]*>/i.exec(html);
  if (!tag) return undefined;
  const action = /action="([^"]*)"/i.exec(tag[0])?.[1] ?? '';
  const fields: Record<string, string> = {};
  for (const input of html.slice(tag.index).match(/<input\b[^>]*>/gi) ?? []) {
    const name = /name="([^"]*)"/i.exec(input)?.[1];
    if (name) fields[decode(name)] = decode(/value="([^"]*)"/i.exec(input)?.[1] ?? '');
  }
  return { action: new URL(decode(action), pageUrl), fields };
}

export interface PendingRequest {
  method: string;
  url: URL;
  form?: Record<string, string>;
  fromSite?: string;
}

export class OAuthBrowser {
  private readonly jar = new Map<string, Map<string, StoredCookie>>();

  /** `headers`: sent with every request, as a browser sends its Accept-Language. */
  constructor(private readonly headers: Record<string, string> = {}) {}

  cookie(url: string, name: string): string | undefined {
    return this.jar.get(new URL(url).host)?.get(name)?.value;
  }

  /** Puts a cookie in the jar, as if `url`'s host had set it (a test copying one browser's cookie to another). */
  putCookie(url: string, name: string, value: string, options: { path?: string; sameSite?: string } = {}): void {
    const host = new URL(url).host;
    if (!this.jar.has(host)) this.jar.set(host, new Map());
    this.jar.get(host)!.set(name, { value, path: options.path ?? '/', sameSite: options.sameSite ?? 'lax' });
  }

  /** One request; `form` sends application/x-www-form-urlencoded; `fromSite` is the origin of the page that sent it. */
  async request(method: string, url: string | URL, options: { form?: Record<string, string>; headers?: Record<string, string>; fromSite?: string } = {}): Promise<PageResponse> {
    const target = new URL(url);
    const crossSitePost = method === 'POST' && options.fromSite !== undefined && options.fromSite !== target.origin;
    const cookies = [...(this.jar.get(target.host)?.entries() ?? [])]
      .filter(([, c]) => pathMatches(target.pathname, c.path) && !(crossSitePost && c.sameSite !== 'none'))
      .map(([name, c]) => `${name}=${c.value}`);
    const headers: Record<string, string> = { accept: 'text/html,application/json', ...this.headers, ...options.headers };
    if (cookies.length > 0) headers.cookie = cookies.join('; ');
    let payload: string | undefined;
    if (options.form) {
      payload = new URLSearchParams(options.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['content-length'] = String(Buffer.byteLength(payload));
      if (options.fromSite) headers.origin = options.fromSite;
    }
    const response = await new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
      const req = httpRequest(target, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h = new Headers();
          for (const [key, value] of Object.entries(res.headers)) {
            for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) h.append(key, v);
          }
          resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString('utf8') });
        });
      });
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
    this.store(target.host, response.headers.getSetCookie());
    const location = response.headers.get('location');
    let json: unknown;
    try {
      json = response.text ? JSON.parse(response.text) : undefined;
    } catch {
      // HTML or empty
    }
    return { ...response, url: target, location: location ? new URL(location, target) : undefined, json };
  }

  /**
   * Follows an authorization URL through the provider's pages as a person would: redirects, the login
   * form (filled with `login`), the consent form, until the provider sends the browser to a URL starting
   * with `until` (a GET redirect, or an auto-submitting form_post page). Returns that last request
   * without making it.
   */
  async walkProvider(authorizationUrl: string, login: string, until: string): Promise<PendingRequest> {
    let next: PendingRequest = { method: 'GET', url: new URL(authorizationUrl) };
    for (let hop = 0; hop < 20; hop++) {
      if (next.url.href.startsWith(until)) return next;
      const page = await this.request(next.method, next.url, { form: next.form, fromSite: next.fromSite });
      if (page.status >= 300 && page.status < 400 && page.location) {
        next = { method: 'GET', url: page.location };
        continue;
      }
      const form = page.status === 200 ? readForm(page.text, page.url) : undefined;
      if (!form) throw new Error(`the provider answered ${page.status} at ${page.url}: ${page.text.slice(0, 500)}`);
      if ('login' in form.fields) form.fields.login = login;
      if ('password' in form.fields) form.fields.password = 'any password';
      next = { method: 'POST', url: form.action, form: form.fields, fromSite: page.url.origin };
    }
    throw new Error('too many hops at the provider');
  }

  /** Makes a request walkProvider stopped at; `extraFields` go into a form_post (Apple's first-login `user`). */
  send(pending: PendingRequest, extraFields: Record<string, string> = {}): Promise<PageResponse> {
    const form = pending.form ? { ...pending.form, ...extraFields } : undefined;
    return this.request(pending.method, pending.url, { form, fromSite: pending.fromSite });
  }

  /** walkProvider, then the callback request itself. */
  async signInAtProvider(authorizationUrl: string, login: string, until: string, extraFields: Record<string, string> = {}): Promise<PageResponse> {
    return this.send(await this.walkProvider(authorizationUrl, login, until), extraFields);
  }

  private store(host: string, lines: string[]): void {
    for (const line of lines) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = '/';
      let sameSite = 'lax';
      let expired = value === '';
      for (const attribute of attributes) {
        const [key, attrValue = ''] = attribute.split('=');
        const k = key.toLowerCase();
        if (k === 'path') path = attrValue || '/';
        if (k === 'samesite') sameSite = attrValue.toLowerCase();
        if (k === 'max-age' && Number(attrValue) <= 0) expired = true;
        if (k === 'expires' && Date.parse(attrValue) <= Date.now()) expired = true;
      }
      if (!this.jar.has(host)) this.jar.set(host, new Map());
      if (expired) this.jar.get(host)!.delete(name);
      else this.jar.get(host)!.set(name, { value, path, sameSite });
    }
  }
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}
