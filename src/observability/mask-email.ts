// No email address reaches a log line in clear (docs/privacy.md): a line names the user by id, or
// shows the address masked to its first character and its domain (`a***@example.com`), enough to tell
// addresses apart while debugging and no more.

/** An address as it appears in text, `@` or its URL encoding `%40` between the parts. */
const EMAIL = /[A-Za-z0-9._%+'-]+(@|%40)([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})/g;

/** `alice@example.com` → `a***@example.com`; anything without an `@` comes back as `***`. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${address[0]}***${address.slice(at)}`;
}

/** The text with every email address in it masked; text without `@` or `%40` costs one scan. */
export function maskEmailsIn(text: string): string {
  if (!text.includes('@') && !text.includes('%40')) return text;
  return text.replace(EMAIL, (match: string, at: string, domain: string) => `${match[0]}***${at}${domain}`);
}
