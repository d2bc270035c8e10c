// Which test files run where (docs/testing.md). vitest.config.ts and test/run.mjs read these lists.
import { readdirSync } from 'node:fs';
//
// A file not listed here runs on SQLite and on PostgreSQL: a new file keeps running on both databases
// until someone lists it, with the reason. The rule that makes SQLITE_ONLY safe is checked on every
// PostgreSQL pass (test/helpers/repo-calls.cjs, test/run.mjs): every exported function of
// src/store/repos/ is called at least once on PostgreSQL, so every SQL statement the service can issue
// still runs there. A file listed here whose repository function is reached by no other file fails that
// check, and then belongs on both databases again (or the function gets a store test).

/** Files whose subject is the HTTP surface, a page or a pure function: the database under them is not what they test. */
export const SQLITE_ONLY = {
  'test/browser/**': 'pages and HTTP through Chromium (harness.ts skipped them on PostgreSQL before)',
  'test/contract/browser-pages.test.ts': 'HTML error pages and their links back to the app',
  'test/contract/console-pages.test.ts': "the console's static files and their headers",
  'test/contract/cors.test.ts': 'CORS headers and preflights',
  'test/contract/foundation-http.test.ts': 'HTTP conventions: request ids, error shapes, limits of bodies and headers',
  'test/contract/security-http.test.ts': 'response headers, CSRF, framework errors, /metrics behind a proxy',
  'test/contract/fuzz.test.ts': 'malformed input on every route: error shapes, no 5xx',
  'test/contract/openapi-client.test.ts': 'the OpenAPI document and a client generated from it',
  'test/contract/oauth-browser-binding.test.ts': 'the OAuth cookie that binds a flow to its browser',
  'test/packages/**': 'the client and server SDKs over HTTP',
  'test/packages/server-readme-types.test.ts': "tsc --strict over packages/server/README.md's snippets, no server",
  'test/packages/client-readme-types.test.ts': "tsc --strict over packages/client/README.md's snippets, no server",
  'test/suite/**': "the suite's own rules (sleeps), no database",
  'src/crypto/**': 'pure functions, no database',
  'src/import-formats/**': 'the export readers over text chunks, no database (the CLI imports: test/contract/cli-import.test.ts on both)',
  'src/http/**': 'request plugins, no database',
  'src/limits/limiter.test.ts': 'rate-limit arithmetic in memory (Redis: test/contract/rate-limits.test.ts on PostgreSQL)',
  'src/mail/**': 'mail templates, no database',
  'src/observability/**': 'pure functions, no database',
  'src/providers/**': 'address checks and a fetch against a loopback socket, no database',
  'src/services/billing/pricing.test.ts': 'price arithmetic, no database',
  'src/services/tables/**': 'value coercion and a cache, no database',
  'src/*.test.ts': 'process, logger and flag helpers, no database',
  'src/runtime/**': "the cluster's node flags and Node's tick objects, no database",
  'src/services/mail/worker.test.ts': "the outbox's retry arithmetic, no database",
  'src/store/statement-cache.test.ts': "better-sqlite3's statement cache over an in-memory SQLite, whatever the run's database",
  'src/store/sqlite-checkpoints.test.ts': "SQLite's WAL checkpoints on SQLite files of its own, whatever the run's database",
  'src/store/db.test.ts': 'the store wrapper over an in-memory SQLite, whatever the run\'s database',
  'src/store/limit.test.ts': 'LIMIT/OFFSET spelled into compiled SQL text, no database',
  'src/store/dialect.test.ts': "error classification of driver errors (PostgreSQL's codes included), no database",
  'src/store/tables-dialect.test.ts': "PostgreSQL's timestamptz text parsed, no database",
  'test/structure/**': 'the engines, import graph, docs and file sizes of the repository, no database (each skipped itself on PostgreSQL)',
  'test/contract/unknown-fields.test.ts': 'an unknown JSON body field is a 400 naming it: route validation (it skipped itself on PostgreSQL)',
  'test/contract/sqlite-wal.test.ts': "SQLite's write-ahead log cap (it skipped itself on PostgreSQL)",
  'test/contract/error-codes.test.ts': 'the `code` beside `detail` in every error body: the HTTP surface',
  'test/contract/release.test.ts': "the release's name in /v1/health, --version and build_info, and JSON-only output: the process's surface (the releases of nodes on PostgreSQL: rolling-deploy)",
  'test/contract/readme-walkthrough.test.ts': "README's curl walk-through, run as written on its default database (SQLite)",
  'test/contract/token-claims.test.ts': "the access token's custom claims rendered from a template: the token's surface (its app setting's writes: management-email-templates on both)",
  'test/contract/email-templates.test.ts': "emails rendered in the tenant's words and the user's language: what the SMTP sink receives (the templates' writes: management-email-templates on both)",
  'test/contract/users-import-hashes.test.ts': "each imported hash family verified and re-hashed: the password hashes' surface (the import's writes: users-import, cli-import on both)",
  'test/contract/cookie-domain.test.ts': 'Set-Cookie attributes by host name: cookies, the HTTP surface',
  'test/contract/email-links.test.ts': "emailed links' landing pages and their cookies: pages, the HTTP surface (single-use consumption: account-password-reset, signin on both)",
};

/**
 * Exceptions to a SQLITE_ONLY glob: files under it that run on both databases all the same (each passes
 * `bothDatabases` to harness.ts skipReason). The glob is then spelled out as the other test files under it.
 */
export const BOTH_DATABASES = {
  'test/browser/console-journey.test.ts': "the console's whole journey writes through every page: on each database's server (issue 54)",
};

/** SQLITE_ONLY's patterns, a glob holding a BOTH_DATABASES file replaced by the other test files under it. */
function sqliteOnlyPatterns() {
  const both = Object.keys(BOTH_DATABASES);
  return Object.keys(SQLITE_ONLY).flatMap((pattern) => {
    if (!pattern.endsWith('/**')) return [pattern];
    const dir = pattern.slice(0, -3);
    if (!both.some((file) => file.startsWith(`${dir}/`))) return [pattern];
    const files = readdirSync(new URL(`../${dir}`, import.meta.url), { recursive: true }).map((name) => `${dir}/${String(name).replaceAll('\\', '/')}`);
    return files.filter((file) => file.endsWith('.test.ts') && !both.includes(file));
  });
}

/** Files that skip themselves everywhere but on PostgreSQL (skipIf): the SQLite pass does not start them. */
export const POSTGRES_ONLY = {
  'test/contract/two-nodes.test.ts': 'two nodes need one shared PostgreSQL and Redis',
  'test/contract/billing-two-nodes.test.ts': 'two nodes need one shared PostgreSQL',
  'test/contract/management-nodes.test.ts': 'two nodes need one shared PostgreSQL',
  'test/contract/organizations-nodes.test.ts': 'two nodes need one shared PostgreSQL',
  'test/contract/webhooks-two-nodes.test.ts': 'two nodes need one shared PostgreSQL',
  'src/store/pg-pool.test.ts': "PostgreSQL's pool and named statements",
  'test/store/contention.test.ts': "PostgreSQL's own deadlock, serialization failure and lock timeout",
  'test/contract/transaction-retries.test.ts': "a real deadlock between a request and another PostgreSQL transaction, answered 503 or retried",
  'test/store/transaction-retries.test.ts': "PostgreSQL's own deadlocks and serialization failures, retried by inTransaction",
};

/**
 * The fault project: real outages (private PostgreSQL clusters stopped and hung, kill -9, a relay or a
 * blob store that never answers). Long waits by nature, little CPU: test/run.mjs runs it beside the main
 * passes, one file at a time, on both databases (each file skips the database it has no case for).
 */
export const FAULT = [
  'test/contract/faults.test.ts',
  'test/contract/resilience-blobs.test.ts',
  'test/contract/resilience-crash.test.ts',
  'test/contract/resilience-health.test.ts',
  'test/contract/resilience-mail.test.ts',
  'test/contract/resilience-postgres.test.ts',
  'test/contract/resilience-sqlite.test.ts',
  'test/contract/rolling-02c1d09.test.ts',
  'test/contract/rolling-deploy.test.ts',
];

/**
 * The smoke set, run on the second Node version (.ci/run): the unit and integration tests, and contract
 * files over both native modules (better-sqlite3 under every route, argon2 in passwords and hashcash).
 */
export const SMOKE = [
  'src/**/*.test.ts',
  'test/integration/**/*.test.ts',
  'test/contract/signup.test.ts',
  'test/contract/signin.test.ts',
  'test/contract/hashcash.test.ts',
  'test/contract/sessions.test.ts',
  'test/contract/tables-rows.test.ts',
  'test/contract/cli-list.test.ts',
];

export const ALL = ['test/**/*.test.ts', 'src/**/*.test.ts'];

/**
 * Files that share their vitest worker (isolate: false) and the servers it keeps: they take their server
 * from sharedServer() (test/helpers/server.ts), so the files one worker runs in a row use one server per
 * environment instead of one each, and load the built service once. Each makes its own tenant and apps and
 * asserts only on what it made (no count of a whole table, no log it did not cause, no restart). Exact
 * paths. Every other file runs in a worker of its own.
 */
export const SHARED = [
  'test/browser/accessibility.test.ts',
  'test/browser/bundlers.test.ts',
  'test/browser/client-tabs.test.ts',
  'test/browser/console-account.test.ts',
  'test/browser/console-buckets.test.ts',
  'test/browser/console-config.test.ts',
  'test/browser/console-import.test.ts',
  'test/browser/console-orgs-events.test.ts',
  'test/browser/console-passkeys.test.ts',
  'test/browser/console-tables.test.ts',
  'test/browser/console-user.test.ts',
  'test/browser/console-users.test.ts',
  'test/browser/console-webhooks.test.ts',
  'test/browser/cross-site.test.ts',
  'test/browser/example-account.test.ts',
  'test/browser/example-app.test.ts',
  'test/browser/example-mfa.test.ts',
  'test/browser/example-passkeys.test.ts',
  'test/browser/example-team.test.ts',
  'test/browser/passkeys.test.ts',
  'test/browser/sso-csrf.test.ts',
  'test/contract/account-email.test.ts',
  'test/contract/bots.test.ts',
  'test/contract/browser-pages.test.ts',
  'test/contract/console-pages.test.ts',
  'test/contract/cookie-domain.test.ts',
  'test/contract/email-links.test.ts',
  'test/contract/events-bans.test.ts',
  'test/contract/events-stats.test.ts',
  'test/contract/fuzz.test.ts',
  'test/contract/hashcash-cli.test.ts',
  'test/contract/management-apps.test.ts',
  'test/contract/management-console-buckets.test.ts',
  'test/contract/management-email-templates.test.ts',
  'test/contract/management-grant-creators.test.ts',
  'test/contract/mfa-passkeys.test.ts',
  'test/contract/openapi-client.test.ts',
  'test/contract/sessions.test.ts',
  'test/contract/signin.test.ts',
  'test/contract/signup.test.ts',
  'test/contract/tables-query.test.ts',
  'test/contract/tables-rows.test.ts',
  'test/contract/tables-schema.test.ts',
  'test/contract/unknown-fields.test.ts',
  'test/contract/users-export.test.ts',
  'test/contract/users-import-hashes.test.ts',
  'test/contract/users-import.test.ts',
  'test/contract/users-sessions.test.ts',
  'test/contract/webhooks-ssrf.test.ts',
  'test/packages/client-mfa.test.ts',
  'test/packages/client-organizations.test.ts',
  'test/packages/client-sdk.test.ts',
  'test/packages/server-org.test.ts',
  'test/packages/server-sdk.test.ts',
  'test/packages/server-webhooks.test.ts',
];

/**
 * What vitest includes and excludes for a set ('main', 'fault', 'smoke', or 'any': every file the
 * database runs, for a named file) on a database ('sqlite' or 'postgres'); `shared`: which of them share
 * their worker (SHARED).
 */
export function filesFor(set, db) {
  const notHere = db === 'postgres' ? sqliteOnlyPatterns() : Object.keys(POSTGRES_ONLY);
  if (set === 'fault') return { include: FAULT, exclude: notHere, shared: [] };
  if (set === 'smoke') return { include: SMOKE, exclude: [...notHere, ...FAULT], shared: SHARED.filter((file) => SMOKE.includes(file)) };
  if (set === 'main') return { include: ALL, exclude: [...notHere, ...FAULT], shared: SHARED };
  return { include: ALL, exclude: notHere, shared: SHARED };
}
