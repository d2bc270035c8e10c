// An email's HTML part, drawn under the console's strict CSP (docs/console.md, "Email templates"). It is
// parsed by htmlparser2 into a tree of plain objects, not by the browser: Chromium's inert documents
// (DOMParser, <template>, createHTMLDocument) run nothing, but they check every inline style and event
// handler they parse against the page's policy and report each as a securitypolicyviolation. The tree is
// copied node by node into the console's document through an allow-list, by createElement and
// setAttribute, never through markup (so no parse-again surprises): nothing is kept that runs, submits,
// frames or embeds; a link keeps its text and opens nothing (its address is its title); an image is kept
// only where the CSP's img-src allows it (data: images), else its alt text stands in. Style never becomes an
// attribute or a <style> element, which the CSP forbids: a style attribute goes into the element's CSSOM
// (element.style.cssText) and each <style> element's text into a constructed CSSStyleSheet, for a shadow
// root to adopt, so the template's CSS reaches only the drawn email. Declarations that would fetch (url(),
// image-set() other than data: images), @font-face and @import, and :host rules are dropped. No side
// effects: the caller attaches what comes back (pages/email/drawn.tsx).
import { isTag, isText, type ChildNode, type Element, type ParentNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';

/** Copied with their allowed attributes. */
const ELEMENTS = new Set(
  'a abbr address b bdi bdo big blockquote br caption center cite code col colgroup dd del dfn div dl dt em font h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s samp small span strike strong sub sup table tbody td tfoot th thead tr tt u ul wbr'.split(' '),
);
/** Dropped with all they hold. */
const DROPPED = new Set(
  'script style noscript template iframe frame frameset object embed applet form input button select textarea option optgroup datalist output fieldset legend label link meta base title head svg math canvas video audio source track picture portal dialog slot'.split(
    ' ',
  ),
);
/** Attributes kept as they are (never an event handler, a URL or a style). */
const ATTRIBUTES = new Set(['class', 'title', 'lang', 'dir', 'align', 'valign', 'width', 'height', 'bgcolor', 'color', 'face', 'size', 'border', 'cellpadding', 'cellspacing', 'colspan', 'rowspan', 'span', 'start', 'type', 'reversed', 'nowrap', 'abbr', 'scope', 'headers', 'datetime']);
const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:']);
/** The CSP's img-src is 'self' data: blob:; an email's own images are data: ones or remote (refused). */
const IMAGE = /^data:image\/(png|gif|jpeg|webp|avif|bmp);/i;
const URL_IN_CSS = /url\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^)]*))\s*\)/gi;

export interface DrawnEmail {
  /** The email's body, as nodes of the console's document (inside a wrapper holding the body's own attributes). */
  content: DocumentFragment;
  /** The email's <style> elements, each a constructed sheet, in order. */
  sheets: CSSStyleSheet[];
  /** What was left out, in words a reader of the preview understands (e.g. "2 remote images (their alt text shown)"). */
  omitted: string[];
}

/** A link's address when it may be shown: an absolute http(s) or mailto URL. */
export function safeLink(value: string): string | undefined {
  try {
    const url = new URL(value.trim());
    return LINK_SCHEMES.has(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** True when a CSS value loads nothing the CSP refuses: no url() but data: images, no image-set() of strings. */
function cssValueAllowed(value: string): boolean {
  if (/image-set\(/i.test(value) && /image-set\([^)]*["']/i.test(value)) return false;
  for (const match of value.matchAll(URL_IN_CSS)) {
    const target = (match[1] ?? match[2] ?? match[3] ?? '').trim();
    if (!IMAGE.test(target)) return false;
  }
  return true;
}

/** Removes from a declaration block every property whose value would fetch what the CSP refuses; the count removed. */
function cleanDeclarations(style: CSSStyleDeclaration): number {
  const refused: string[] = [];
  for (let i = 0; i < style.length; i++) {
    const name = style.item(i);
    if (!cssValueAllowed(style.getPropertyValue(name))) refused.push(name);
  }
  for (const name of refused) style.removeProperty(name);
  return refused.length;
}

/**
 * Cleans a sheet's rules in place, nested ones too (@media, @supports, @layer, nesting, keyframes): @font-face,
 * @import and :host rules go, and so does any rule that neither holds declarations nor rules (@namespace,
 * @property…: nothing an email needs). The count of what went because it would load a file or reach the host.
 */
function cleanRules(rules: CSSRuleList, remove: (index: number) => void): number {
  let removed = 0;
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    const declarations = 'style' in rule ? (rule.style as CSSStyleDeclaration) : undefined;
    const nested = 'cssRules' in rule ? (rule as CSSGroupingRule) : undefined;
    if (rule instanceof CSSFontFaceRule || rule instanceof CSSImportRule || (rule instanceof CSSStyleRule && /:host|::part|::slotted/i.test(rule.selectorText))) {
      remove(i);
      removed++;
    } else if (!declarations && !nested) remove(i);
    else {
      if (declarations) removed += cleanDeclarations(declarations);
      // (A keyframes rule holds only keyframes, which hold declarations: none of them is removed by index.)
      if (nested) removed += cleanRules(nested.cssRules, (j) => nested.deleteRule(j));
    }
  }
  return removed;
}

/** A <style> element's text as a constructed sheet, cleaned. */
export function sheetOf(text: string): { sheet: CSSStyleSheet; removed: number } {
  const sheet = new CSSStyleSheet();
  // replaceSync ignores @import rules and fetches nothing.
  sheet.replaceSync(text);
  return { sheet, removed: cleanRules(sheet.cssRules, (i) => sheet.deleteRule(i)) };
}

/**
 * What the drawn email starts from, before its own sheets: a link (which opens nothing here) still looks like
 * one, and the email stays inside its box (no fixed or absolute element over the console).
 */
export function baseSheet(): CSSStyleSheet {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(':host { display: block; contain: paint; overflow: auto; } a[data-href] { color: LinkText; text-decoration: underline; cursor: help; } img { max-width: 100%; height: auto; }');
  return sheet;
}

interface Tally {
  elements: Set<string>;
  images: number;
  styles: number;
}

function copyAttributes(from: Element, to: HTMLElement, tally: Tally): void {
  for (const [name, value] of Object.entries(from.attribs)) {
    if (name === 'style') {
      to.style.cssText = value;
      tally.styles += cleanDeclarations(to.style);
    } else if (ATTRIBUTES.has(name)) to.setAttribute(name, value);
  }
}

/** A heading of the email one level under the preview's own headings (h2 Preview, h3 HTML part). */
const HEADING = /^h([1-6])$/;

function copyElement(from: Element, into: Document, tally: Tally): Node | undefined {
  const tag = from.name.toLowerCase();
  if (DROPPED.has(tag)) {
    if (tag !== 'style' && tag !== 'head' && tag !== 'title' && tag !== 'meta') tally.elements.add(tag);
    return undefined;
  }
  if (!ELEMENTS.has(tag)) return copyChildren(from, into, into.createDocumentFragment(), tally);
  const src = (from.attribs.src ?? '').trim();
  if (tag === 'img' && !IMAGE.test(src)) {
    tally.images++;
    return from.attribs.alt ? into.createTextNode(`[${from.attribs.alt}]`) : undefined;
  }
  const to = into.createElement(tag);
  copyAttributes(from, to, tally);
  if (tag === 'img') {
    to.setAttribute('src', src);
    to.setAttribute('alt', from.attribs.alt ?? '');
  }
  if (tag === 'a') {
    const href = safeLink(from.attribs.href ?? '');
    if (href) {
      to.setAttribute('title', href);
      to.dataset.href = href;
    }
  }
  const heading = HEADING.exec(tag);
  if (heading) to.setAttribute('aria-level', String(Math.min(6, Number(heading[1]) + 3)));
  return copyChildren(from, into, to, tally);
}

function copyChildren<T extends Node>(from: ParentNode, into: Document, to: T, tally: Tally): T {
  for (const child of from.children) {
    if (isText(child)) to.appendChild(into.createTextNode(child.data));
    else if (isTag(child)) {
      const copy = copyElement(child, into, tally);
      if (copy) to.appendChild(copy);
    }
  }
  return to;
}

/** Every element of the tree named `name`, in document order. */
function elementsNamed(nodes: ChildNode[], name: string, found: Element[] = []): Element[] {
  for (const node of nodes) {
    if (!isTag(node)) continue;
    if (node.name.toLowerCase() === name) found.push(node);
    elementsNamed(node.children, name, found);
  }
  return found;
}

/** The email's HTML drawn for `into` (the console's document): see the top of this file. */
export function drawEmail(html: string, into: Document): DrawnEmail {
  const parsed = parseDocument(html, { lowerCaseTags: true, lowerCaseAttributeNames: true });
  const tally: Tally = { elements: new Set(), images: 0, styles: 0 };
  const sheets = elementsNamed(parsed.children, 'style').map((style) => {
    const { sheet, removed } = sheetOf(style.children.map((c) => (isText(c) ? c.data : '')).join(''));
    tally.styles += removed;
    return sheet;
  });
  const wrapper = into.createElement('div');
  wrapper.className = 'email-body';
  const body = elementsNamed(parsed.children, 'body')[0];
  if (body) copyAttributes(body, wrapper, tally);
  const lang = elementsNamed(parsed.children, 'html')[0]?.attribs.lang;
  if (lang && !wrapper.lang) wrapper.lang = lang;
  copyChildren(body ?? parsed, into, wrapper, tally);
  const content = into.createDocumentFragment();
  content.appendChild(wrapper);
  const omitted: string[] = [];
  if (tally.elements.size) omitted.push(`elements that run, embed or submit (${[...tally.elements].sort().join(', ')})`);
  if (tally.images) omitted.push(`${tally.images} remote image${tally.images === 1 ? '' : 's'} (the alt text shown instead)`);
  if (tally.styles) omitted.push(`${tally.styles} style rule${tally.styles === 1 ? '' : 's'} that would load a remote file`);
  return { content, sheets, omitted };
}
