// The preview's HTML part drawn (pages/email/sanitize.ts): in a shadow root of its own, which adopts the
// email's constructed style sheets, so the email's CSS styles the email only and the console's CSP holds
// (no inline style, no remote image, no script). What was left out is said under it.
// sanitize.ts (and htmlparser2 with its entity tables) is a chunk of its own, loaded on the first preview.
import { useEffect, useRef, useState } from 'preact/hooks';

export function DrawnEmail({ html }: { html: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [omitted, setOmitted] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    void import('./sanitize.js').then(({ baseSheet, drawEmail }) => {
      const element = host.current;
      if (!live || !element) return;
      const root = element.shadowRoot ?? element.attachShadow({ mode: 'open' });
      const drawn = drawEmail(html, document);
      root.adoptedStyleSheets = [baseSheet(), ...drawn.sheets];
      root.replaceChildren(drawn.content);
      setOmitted(drawn.omitted);
    }).catch(() => live && setOmitted(['the whole part, which this browser could not draw (its source is below)']));
    return () => {
      live = false;
    };
  }, [html]);
  return (
    <>
      <div ref={host} class="email-drawn" role="region" aria-label="The HTML part, drawn" />
      <p class="hint">{`Drawn as a mail reader would, links opening nothing here (an address shows on pointing at it).${omitted.length ? ` Left out: ${omitted.join('; ')}.` : ''}`}</p>
    </>
  );
}
