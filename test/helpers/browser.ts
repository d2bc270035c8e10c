import { api, type JsonResponse } from './fixtures.js';
import type { TestServer } from './server.js';

// A small stand-in for a browser, for flows that hop between domains (SSO): every request goes to the
// test server, but carries the Host of the URL it is "for" and that host's cookies, and the cookies the
// server sets are kept per host (host-only cookies, Path respected, Max-Age=0 deletes). Redirects are
// never followed: the test reads Location and decides where the browser goes next, as the page would.

interface StoredCookie {
  value: string;
  path: string;
}

export interface BrowserResponse<T = any> extends JsonResponse<T> {
  /** The Location header parsed as a URL, for redirects. */
  location?: URL;
}

export class Browser {
  private readonly jar = new Map<string, Map<string, StoredCookie>>();

  constructor(private readonly server: TestServer) {}

  /** The cookie the browser holds for this host, or undefined. */
  cookie(host: string, name: string): string | undefined {
    return this.jar.get(host)?.get(name)?.value;
  }

  /** Puts a cookie into the jar, as a page's own script or an earlier visit would have. */
  setCookie(host: string, name: string, value: string, path = '/'): void {
    if (!this.jar.has(host)) this.jar.set(host, new Map());
    this.jar.get(host)!.set(name, { value, path });
  }

  /**
   * Sends one request "to" `url` (e.g. https://a.example.test/v1/sso/bridge?...): the path and query go
   * to the test server with `Host: a.example.test` and the cookies of that host whose Path matches.
   */
  async request<T = any>(method: string, url: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<BrowserResponse<T>> {
    const target = new URL(url);
    const cookies = [...(this.jar.get(target.host)?.entries() ?? [])]
      .filter(([, c]) => pathMatches(target.pathname, c.path))
      .map(([name, c]) => `${name}=${c.value}`);
    const headers: Record<string, string> = { host: target.host, ...options.headers };
    if (cookies.length > 0) headers.cookie = cookies.join('; ');
    const response = await api<T>(this.server, method, target.pathname + target.search, { body: options.body, headers });
    this.store(target.host, response.headers.getSetCookie());
    const location = response.headers.get('location');
    return { ...response, location: location ? new URL(location, target) : undefined };
  }

  private store(host: string, lines: string[]): void {
    for (const line of lines) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = '/';
      let expired = value === '';
      for (const attribute of attributes) {
        const [key, attrValue = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') path = attrValue || '/';
        if (key.toLowerCase() === 'max-age' && Number(attrValue) <= 0) expired = true;
        if (key.toLowerCase() === 'expires' && Date.parse(attrValue) <= Date.now()) expired = true;
      }
      if (expired) this.jar.get(host)?.delete(name);
      else this.setCookie(host, name, value, path);
    }
  }
}

/** RFC 6265 path-match: the cookie path is the request path or a directory prefix of it. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}
