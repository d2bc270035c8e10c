// Locales of emails (docs/email.md): a user's locale is a BCP 47 tag, kept in its canonical form; an email
// takes the first of the tag's chain (fr-CA, then fr) that the app or the service has a template for, else English.

/** The longest tag kept (RFC 5646 advises room for 35 characters). */
export const LOCALE_MAX_LENGTH = 35;

/** The canonical form of a BCP 47 tag ("EN-gb" → "en-GB"), or undefined when it is not one. */
export function canonicalLocale(tag: string): string | undefined {
  if (tag.length === 0 || tag.length > LOCALE_MAX_LENGTH) return undefined;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical && canonical.length <= LOCALE_MAX_LENGTH ? canonical : undefined;
  } catch {
    return undefined;
  }
}

/** The tags an email in `locale` may be written in, most precise first, ending with English. */
export function localeChain(locale: string | null | undefined): string[] {
  const chain: string[] = [];
  const canonical = locale ? canonicalLocale(locale) : undefined;
  if (canonical) {
    const parsed = new Intl.Locale(canonical);
    const { language, script, region } = parsed;
    chain.push(canonical);
    if (script && region) chain.push(`${language}-${script}-${region}`);
    if (script) chain.push(`${language}-${script}`);
    if (region) chain.push(`${language}-${region}`);
    chain.push(language);
  }
  chain.push('en');
  return [...new Set(chain)];
}

/**
 * The language a sign-up's Accept-Language prefers most (the highest q, the first among equals), canonical;
 * null when it names none (absent, `*` only, or nothing that is a tag).
 */
export function localeFromAcceptLanguage(header: string | undefined): string | null {
  if (!header || header.length > 1024) return null;
  let best: { tag: string; q: number } | undefined;
  for (const part of header.split(',').slice(0, 32)) {
    const [range, ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!range || range === '*' || !Number.isFinite(weight) || weight <= 0 || weight > 1) continue;
    const tag = canonicalLocale(range.trim());
    if (tag && (!best || weight > best.q)) best = { tag, q: weight };
  }
  return best?.tag ?? null;
}

/** "10 minutes", "24 heures", "7 Tage": a lifetime in the email's language (whole hours, or days from two days on). */
export function describeDuration(seconds: number, locale: string): string {
  const minutes = Math.round(seconds / 60);
  const [value, unit] =
    minutes >= 2880 && minutes % 1440 === 0 ? [minutes / 1440, 'day'] : minutes >= 60 && minutes % 60 === 0 ? [minutes / 60, 'hour'] : [minutes, 'minute'];
  return new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
}
