// The token of a request: `Authorization: Bearer ...`, else the `__session` cookie (same-site pages).

export function tokenOf(authorization: string | null | undefined, cookie: string | null | undefined): string | undefined {
  const bearer = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization.trim())?.[1] : undefined;
  if (bearer) return bearer;
  for (const part of (cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === '__session') return decodeURIComponent(value.join('='));
  }
  return undefined;
}
