// Small helpers the example's modules share: elements by id, the notice line, and `run`, which turns a
// button's work into a message a person can read (never a token, never raw JSON).
export const $ = (id) => document.getElementById(id);
export const value = (id) => $(id).value.trim();

/**
 * Moves the keyboard's focus to the heading of what just appeared (a step, or the signed-in view), so a
 * keyboard or screen-reader user goes on from there rather than from the top of the page.
 */
export function focusHeading(id) {
  $(id)?.querySelector('h1')?.focus();
}

// Enter in a field submits its form: the browser clicks the form's default button (the step's own action,
// which does the work) and this keeps the submission from loading another page.
document.addEventListener('submit', (event) => event.preventDefault());

/** Shows a message; `state` is 'working', 'ok' or 'error' (the tests read it from data-state). */
export function notice(text, state = 'ok') {
  const line = $('notice');
  line.hidden = false;
  line.textContent = text;
  line.dataset.state = state;
}

/** The sentence for a refusal, chosen by its `code`: Gatehouse's own `detail`, and the request id to quote to support. */
export function explain(error) {
  if (error?.name !== 'GatehouseError') return error?.message ?? String(error);
  if (error.code === 'network_error') return 'We could not reach the server. Check your connection and try again.';
  if (error.code === 'rate_limited') return `Too many tries. Wait ${error.retryAfter ?? 'a few'} seconds and try again.`;
  return `${error.detail.charAt(0).toUpperCase()}${error.detail.slice(1)}.${error.requestId ? ` (reference ${error.requestId})` : ''}`;
}

/**
 * Runs a person's action: a "working" message, then what `work` answers (a sentence) or the error's.
 * data-state is 'working' at once (in the click itself), so a test can wait for the 'ok' or 'error' after it.
 */
export async function run(working, work) {
  const buttons = [...document.querySelectorAll('button')];
  buttons.forEach((b) => (b.disabled = true));
  notice(working, 'working');
  try {
    const message = await work();
    notice(message ?? 'Done.', 'ok');
  } catch (error) {
    notice(explain(error), 'error');
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}

/** "Chrome on Linux" from a user agent: enough to recognise one's own devices. */
export function device(userAgent) {
  if (!userAgent) return 'Unknown device';
  const browser = /Edg\//.test(userAgent) ? 'Edge' : /Firefox\//.test(userAgent) ? 'Firefox' : /Chrom(e|ium)\//.test(userAgent) ? 'Chrome' : /Safari\//.test(userAgent) ? 'Safari' : /node|curl/i.test(userAgent) ? 'A program' : 'A browser';
  const os = /Windows/.test(userAgent) ? 'Windows' : /Android/.test(userAgent) ? 'Android' : /iPhone|iPad/.test(userAgent) ? 'iOS' : /Mac OS/.test(userAgent) ? 'macOS' : /Linux/.test(userAgent) ? 'Linux' : '';
  return os ? `${browser} on ${os}` : browser;
}

export const when = (iso) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
