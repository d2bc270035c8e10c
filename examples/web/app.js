// The example's page script: plain ES modules, no framework. Every call goes to the API on this page's
// own host name (config.api), with credentials, so the API's HttpOnly cookies (__session, __refresh)
// do the session work: the page never holds a token. See docs/browser.md.
import config from '/config.js';
import { solve } from '/hashcash/solve.js';

const $ = (id) => document.getElementById(id);
const value = (id) => $(id).value.trim();

/** One API call: JSON in and out, the publishable key, cookies included. Answers {status, body, requestId}. */
async function api(method, path, body) {
  const headers = { 'x-publishable-key': config.publishableKey };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(config.api + path, { method, headers, credentials: 'include', body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  // CORS exposes X-Request-ID even on errors: quote it when reporting a problem.
  return { status: response.status, body: text ? JSON.parse(text) : null, requestId: response.headers.get('x-request-id') };
}

function show(label, result) {
  $('status').textContent = `${label}: ${result.status}`;
  $('out').textContent = JSON.stringify(result.body, null, 2) + (result.requestId ? `\n(request ${result.requestId})` : '');
  // Tokens are in the cookies already; nothing is kept in the page.
}

async function run(label, work) {
  $('status').textContent = `${label}…`;
  delete $('status').dataset.status;
  let outcome;
  try {
    const result = await work();
    show(label, result);
    outcome = String(result.status);
  } catch (error) {
    $('status').textContent = `${label}: ${error.message}`;
    outcome = 'error';
  }
  await refreshWho();
  // Set last: tests (and people) read the status once the page is up to date.
  $('status').dataset.status = outcome;
}

async function refreshWho() {
  const me = await api('GET', '/v1/me');
  $('who').textContent = me.status === 200 ? `Signed in as ${me.body.email} (${me.body.email_verified ? 'verified' : 'unverified'}).` : 'Not signed in.';
  $('who').dataset.email = me.status === 200 ? me.body.email : '';
}

const here = () => `${location.origin}/`;

$('signup').onclick = () =>
  run('sign-up', async () => {
    const challenge = await api('POST', '/v1/challenges');
    if (challenge.status !== 200) return challenge;
    $('status').textContent = `sign-up: solving the proof-of-work (difficulty ${challenge.body.difficulty})…`;
    const proof = await solve(challenge.body);
    const password = value('password');
    return api('POST', '/v1/signups', {
      email: value('email'),
      password: password || null,
      redirect_url: here(),
      hashcash: { challenge: proof.challenge, nonce: proof.nonce },
    });
  });

$('verify').onclick = () => run('verify-code', () => api('POST', '/v1/verify-code', { email: value('email'), code: value('code') }));
$('signin-password').onclick = () =>
  run('password sign-in', () => api('POST', '/v1/signins', { email: value('email'), password: value('password'), strategy: 'password' }));
// The emailed link opens the API (same host name as this page), which sets the cookies and redirects here.
$('magic-link').onclick = () => run('magic link', () => api('POST', '/v1/signins', { email: value('email'), strategy: 'magic_link', redirect_url: here() }));
$('me').onclick = () => run('me', () => api('GET', '/v1/me'));
// No body: the refresh token comes from the __refresh cookie (Path=/v1/tokens/session), and both cookies are renewed.
$('refresh').onclick = () => run('refresh', () => api('POST', '/v1/tokens/session'));
$('logout').onclick = () => run('logout', () => api('POST', '/v1/sessions/logout'));

// SSO: a top-level navigation to this app's bridge (it cannot send headers: the key goes in the query),
// which redirects to the other site with a one-time __sso_token; that page exchanges it below.
for (const other of config.others) {
  const link = document.createElement('a');
  link.className = 'button';
  link.id = `sso-${other.name.toLowerCase()}`;
  link.textContent = `Continue to ${other.name} (SSO)`;
  link.href = `${config.api}/v1/sso/bridge?${new URLSearchParams({ publishable_key: config.publishableKey, return_to: other.url })}`;
  $('sso').append(link);
}

async function start() {
  $('app-name').textContent = config.name;
  document.title = `Gatehouse example: ${config.name}`;
  const url = new URL(location.href);
  const token = url.searchParams.get('__sso_token');
  if (token) {
    // Take the token out of the address bar (and history) before using it.
    url.searchParams.delete('__sso_token');
    history.replaceState(null, '', url);
    await run('SSO exchange', () => api('POST', '/v1/sso/exchange', { token }));
  } else {
    await refreshWho();
  }
  document.body.dataset.ready = 'true';
}
start();
