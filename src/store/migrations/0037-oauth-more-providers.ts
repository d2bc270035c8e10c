import type { Kysely } from 'kysely';

// More sign-in providers (docs/oauth.md): GitHub, Microsoft and custom OpenID Connect providers
// (`oidc-<name>`). oauth_providers gains what the new ones need: `issuer` (a custom provider's issuer URL),
// `tenant` (Microsoft: common, organizations, consumers or a tenant id) and `display_name` (what a sign-in
// page shows; a custom provider's is set by the app, the built-in ones are named by the service).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_providers').addColumn('issuer', 'text').execute();
  await db.schema.alterTable('oauth_providers').addColumn('tenant', 'text').execute();
  await db.schema.alterTable('oauth_providers').addColumn('display_name', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['display_name', 'tenant', 'issuer']) {
    await db.schema.alterTable('oauth_providers').dropColumn(column).execute();
  }
}
