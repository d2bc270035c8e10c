// The example app: a small notebook on @gatehouse/client. The API is on this page's own host name, so the
// client runs on cookies: the session lives in the API's HttpOnly cookies and no token ever reaches this
// page's script, let alone its screen. See docs/browser.md.
import { createClient, MfaRequiredError } from '/client/index.js';
import config from '/config.js';
import { avatar } from './avatar.js';
import { factors } from './factors.js';
import { notes } from './notes.js';
import { profile } from './profile.js';
import { team } from './team.js';
import { $, focusHeading, notice, run, value } from './ui.js';

const gatehouse = createClient({ url: config.api, publishableKey: config.publishableKey });
const auth = gatehouse.auth;
const here = `${location.origin}/`;
const account = profile(gatehouse, config);
// The notes card follows the team card's active organisation: personal notes, or the team's shared ones.
const teamCard = team(gatehouse, () => noteCard.load());
const noteCard = notes(gatehouse, () => teamCard.activeName());
const picture = avatar(gatehouse);
const security = factors(gatehouse);

/** What the code box is for: a sign-up's or a sign-in's code (verifyOtp), or a password reset's. */
let codeFor = { purpose: 'sign-in', email: '' };

function askForCode(purpose, email, hint) {
  codeFor = { purpose, email };
  $('code-hint').textContent = hint;
  $('code').value = '';
  $('new-password-label').hidden = purpose !== 'reset';
  $('welcome').hidden = true;
  $('code-step').hidden = false;
  focusHeading('code-step');
}

function backToWelcome() {
  $('welcome').hidden = false;
  $('code-step').hidden = true;
  $('reset-step').hidden = true;
  $('mfa-step').hidden = true;
  focusHeading('welcome');
}

/** The sign-in awaiting its second factor (docs/mfa.md): its mfa_token, good for 5 minutes. */
let mfaToken = '';

/** The second step: a code or a recovery code, or a passkey when the account has one (or we cannot tell). */
function askForSecondFactor(token, factorList) {
  mfaToken = token;
  $('mfa-code').value = '';
  $('use-mfa-passkey').hidden = Boolean(factorList) && !factorList.some((f) => f.type === 'webauthn');
  $('welcome').hidden = $('code-step').hidden = $('reset-step').hidden = true;
  $('mfa-step').hidden = false;
  focusHeading('mfa-step');
}

/** Runs a sign-in; an account with a second factor gets the second step instead of `done`'s message. */
async function signingIn(signIn, done) {
  try {
    await signIn();
    return done;
  } catch (error) {
    if (!(error instanceof MfaRequiredError)) throw error;
    askForSecondFactor(error.mfaToken, error.factors);
    return 'One more step: confirm it is you.';
  }
}

async function showSignedIn() {
  document.body.dataset.view = 'signed-in';
  document.body.dataset.loaded = 'false';
  backToWelcome();
  $('signed-in-title').focus();
  await Promise.all([account.load(), teamCard.load().then(() => noteCard.load()), picture.load(), security.load()]);
  document.body.dataset.loaded = 'true';
}

function showSignedOut() {
  document.body.dataset.view = 'signed-out';
  focusHeading('welcome');
  picture.clear();
  security.clear();
  teamCard.clear();
  $('note-list').replaceChildren();
}

$('account-form').onsubmit = (event) => {
  event.preventDefault();
  run('Signing you in…', () => signingIn(() => auth.signInWithPassword({ email: value('email'), password: $('password').value }), 'Welcome back.'));
};

$('passkey-sign-in').onclick = () =>
  run('Follow your browser to use your passkey…', async () => {
    await auth.signInWithPasskey();
    return 'Welcome back.';
  });

$('use-mfa-code').onclick = () =>
  run('Checking…', async () => {
    const code = value('mfa-code');
    // Six digits come from the authenticator app; anything else is a recovery code (xxxxx-xxxxx).
    await auth.verifyMfa(/^[0-9]{6}$/.test(code) ? { mfaToken, code } : { mfaToken, recoveryCode: code });
    return 'Welcome back.';
  });
$('use-mfa-passkey').onclick = () =>
  run('Follow your browser to use your passkey…', async () => {
    await auth.verifyMfa({ mfaToken, passkey: true });
    return 'Welcome back.';
  });
$('cancel-mfa').onclick = backToWelcome;

$('sign-up').onclick = () =>
  run('Creating your account…', async () => {
    const email = value('email');
    await auth.signUp({ email, password: $('password').value || undefined, redirectTo: here, onSolving: () => notice('Creating your account (a second or two of anti-spam work)…', 'working') });
    askForCode('sign-up', email, `We sent a 6-digit code and a link to ${email}. Enter the code, or open the link.`);
    return 'Account created: check your email to confirm it.';
  });

$('email-code').onclick = () =>
  run('Sending you a code…', async () => {
    const email = value('email');
    await auth.signInWithOtp({ email, redirectTo: here });
    askForCode('sign-in', email, `We sent a 6-digit code to ${email}.`);
    return 'Check your email.';
  });

$('email-link').onclick = () =>
  run('Sending you a link…', async () => {
    await auth.signInWithOtp({ email: value('email'), redirectTo: here });
    return `We sent a sign-in link to ${value('email')}. Open it on this device.`;
  });

$('forgot').onclick = () =>
  run('Sending a reset code…', async () => {
    const email = value('email');
    if (!email) throw new Error('Enter your email first.');
    await auth.resetPasswordForEmail(email, { redirectTo: here });
    askForCode('reset', email, `If ${email} has an account with a password, we sent it a code and a link. Enter the code and a new password.`);
    return 'Check your email.';
  });

$('use-code').onclick = () =>
  run('Checking the code…', async () => {
    const code = value('code');
    if (codeFor.purpose === 'reset') {
      const reset = () => auth.confirmPasswordReset({ email: codeFor.email, code, password: $('new-password').value });
      return signingIn(reset, 'Password changed. You are signed in, and signed out everywhere else.');
    }
    return signingIn(() => auth.verifyOtp({ email: codeFor.email, code }), codeFor.purpose === 'sign-up' ? 'Your email is confirmed. Welcome!' : 'Welcome back.');
  });
$('cancel-code').onclick = backToWelcome;

/**
 * SSO from another app of the tenant (docs/sso.md): this page starts the hop, so its client keeps the
 * nonce that the bridge binds the token to. The app comes from config.js, never from the address: the
 * address only says which of the known apps the person came from.
 */
function signInWith(other) {
  auth.signInWithSso({ from: { url: other.api, publishableKey: other.publishableKey }, redirectTo: here });
}

for (const other of config.others) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary wide';
  button.id = `sso-from-${other.name.toLowerCase()}`;
  button.textContent = `Sign in with your ${other.name} account`;
  button.onclick = () => signInWith(other);
  $('sso-sign-ins').append(button);
}

/**
 * The app's sign-in providers (GitHub, Microsoft, its own OpenID Connect ones...), one button each, from
 * GET /v1/oauth/providers/public: what the app configured, named as it chose. The provider sends the
 * person back here, where handleRedirect() reports how it went.
 */
async function drawProviderButtons() {
  const providers = await auth.listOAuthProviders().catch(() => []);
  $('oauth-sign-ins').replaceChildren(
    ...providers.map(({ provider, display_name }) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'secondary wide';
      button.id = `oauth-${provider}`;
      button.textContent = `Sign in with ${display_name}`;
      button.onclick = () =>
        run(`Going to ${display_name}…`, async () => {
          await auth.signInWithOAuth({ provider, redirectTo: here });
          return `Going to ${display_name}…`;
        });
      return button;
    }),
  );
}

/** What to tell the person when a provider sign-in came back with ?error= (docs/oauth.md lists the codes). */
const OAUTH_ERRORS = {
  email_not_verified: 'That account has no verified email address with the provider. Verify it there, or sign in another way.',
  access_denied: 'The sign-in was cancelled.',
  provider_unavailable: 'The provider could not be reached. Try again in a moment.',
};

/** The app named by `?sign_in_with=` (a link of that app's page), removed from the address; or undefined. */
function ssoRequested() {
  const url = new URL(location.href);
  const name = url.searchParams.get('sign_in_with');
  if (name === null) return undefined;
  url.searchParams.delete('sign_in_with');
  history.replaceState(history.state, '', url.href);
  return config.others.find((other) => other.name === name);
}

$('sign-out').onclick = () => run('Signing out…', async () => {
  await auth.signOut();
  return 'You are signed out.';
});

/** A landing from an email or another app: say what happened, or ask for what is missing. */
async function greet() {
  const landing = await auth.handleRedirect();
  if (!landing) return;
  // An email link, a sign-in provider, or SSO proved who this is; the account asks for its second factor too.
  if (landing.type === 'mfa') {
    askForSecondFactor(landing.mfaToken, landing.factors);
    return notice('One more step: confirm it is you.', 'ok');
  }
  const session = await auth.getSession();
  if (landing.type === 'link') notice(session ? 'You are signed in from the link in your email.' : 'That link did not sign you in. Ask for a new one.', session ? 'ok' : 'error');
  if (landing.type === 'sso') {
    // The client exchanges only a hop this page started while signed out (login CSRF): anything else is left alone.
    if (landing.refused === 'not_requested') notice('That sign-in link did not come from this page, so it was ignored.', 'error');
    else if (landing.refused === 'signed_in') notice(`You are already signed in to ${config.name}: the sign-in from the other app was not used.`, 'ok');
    else notice(session ? `You are signed in to ${config.name} with your account from the other app.` : 'That sign-in did not work. Sign in here instead.', session ? 'ok' : 'error');
  }
  if (landing.type === 'oauth') notice(landing.error ? (OAUTH_ERRORS[landing.error] ?? 'That sign-in did not work. Try again.') : 'You are signed in.', landing.error ? 'error' : 'ok');
  if (landing.type === 'password_reset') {
    $('welcome').hidden = true;
    $('reset-step').hidden = false;
    focusHeading('reset-step');
    $('save-reset').onclick = () =>
      run('Saving your new password…', () => signingIn(() => auth.confirmPasswordReset({ token: landing.token, password: $('reset-password').value }), 'Password changed. You are signed in.'));
  }
  if (landing.type === 'email_change') {
    if (!session) return notice('Sign in, then open the link again to confirm your new email.', 'error');
    await run('Confirming your new email…', async () => `Your email is now ${(await auth.confirmEmailChange({ token: landing.token })).email}.`);
  }
}

async function start() {
  $('app-name').textContent = config.name;
  document.title = `Notebook · ${config.name}`;
  // Every later change of session, here or in another tab, redraws the page.
  let view = Promise.resolve();
  const redraw = (session) => (view = view.then(() => (session ? showSignedIn() : showSignedOut())).catch(() => undefined));
  auth.onAuthStateChange((event, session) => {
    if (event !== 'INITIAL_SESSION' && event !== 'TOKEN_REFRESHED') redraw(session);
  });
  const from = ssoRequested();
  await Promise.all([greet(), drawProviderButtons()]);
  const session = await auth.getSession();
  // Signed out here and come from another app's "Open" link: sign in with that app's session.
  if (from && !session) return signInWith(from);
  await redraw(session);
  document.body.dataset.ready = 'true';
}
start();
