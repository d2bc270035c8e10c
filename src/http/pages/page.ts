import type { FastifyReply } from 'fastify';

// The frame of the few HTML pages Gatehouse answers to a person (emailed links, navigations that fail):
// inline styles only; the CSP forbids scripts and frames, so nothing on them can be clickjacked or run.

const CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function page(title: string, body: string, referrerPolicy = 'no-referrer'): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${referrerPolicy}"><title>${escapeHtml(title)}</title>
<style>
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f4f5f7;
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328}
main{background:#fff;max-width:26rem;margin:1rem;padding:2rem;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.25rem;margin:0 0 .75rem}p{margin:0 0 1.25rem;color:#484f58}p.code{font-size:.8rem;color:#6e7781}
a.button,button{display:inline-block;font:inherit;font-weight:600;padding:.6rem 1.2rem;border:0;border-radius:8px;
background:#1f6feb;color:#fff;text-decoration:none;cursor:pointer}
</style></head>
<body><main>${body}</main></body></html>
`;
}

export function sendHtml(reply: FastifyReply, status: number, html: string, referrerPolicy = 'no-referrer'): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CSP)
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store')
    .header('referrer-policy', referrerPolicy)
    .send(html);
}

/** The error's code in small print: what a person quotes to the app's support, as a client reads it from `{detail, code}`. */
export const codeLine = (code: string) => `<p class="code">Error code: ${escapeHtml(code)}</p>`;

/** A "back to the app" button, when the app (and so a safe place to send the person) is known. */
export const backButton = (url: string | undefined) => (url ? `<a class="button" href="${escapeHtml(url)}">Back to the app</a>` : '');
