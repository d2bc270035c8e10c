import { Link } from '../router.js';

/** `base` with the keyset cursor `?cursor=` (or `base` itself for the first page). */
export function cursorHref(base: string, cursor?: string): string {
  return cursor ? `${base}?cursor=${encodeURIComponent(cursor)}` : base;
}

/**
 * The links under a keyset list whose cursor lives in the address (so a page can be linked and reloaded):
 * the first page once past it, the next while the server gave a `next_cursor`. `href` builds a page's
 * address where the list keeps more than the cursor in it (filters).
 */
export function Pager({ base = '', cursor, next, href = (c) => cursorHref(base, c), first = 'First page', later = 'Next page' }: { base?: string; cursor: string; next: string | null | undefined; href?: (cursor?: string) => string; first?: string; later?: string }) {
  return (
    <p class="actions">
      {cursor && <Link href={href()}>{first}</Link>}
      {next && <Link href={href(next)}>{later}</Link>}
    </p>
  );
}
