/** The `iat` and `exp` of a JWT, read without verifying it (the client only schedules refreshes with them). */
export function tokenTimes(token: string): { iat: number; exp: number } | undefined {
  const part = token.split('.')[1];
  if (!part) return undefined;
  try {
    const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
    const text = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
    const { iat, exp } = JSON.parse(text) as { iat?: unknown; exp?: unknown };
    return typeof iat === 'number' && typeof exp === 'number' ? { iat, exp } : undefined;
  } catch {
    return undefined;
  }
}
