// The few parts of oidc-provider 8 (which ships no types) the test fixture uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface KoaContext {
    path: string;
    body: unknown;
    get(header: string): string;
  }

  export default class Provider {
    constructor(issuer: string, configuration: unknown);
    readonly Client: { prototype: object };
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
