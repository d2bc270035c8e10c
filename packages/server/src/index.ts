// @gatehouse/server: what a tenant's own servers need from Gatehouse.
export { createVerifier, type AccessClaims, type Verifier, type VerifierOptions } from './verify.js';
export { claimsFromRequest, expressAuth, fastifyAuth, unmetRequirement, type AuthOptions } from './middleware.js';
export { createAdminClient, type AdminClient, type AdminOptions, type User, type UserMetadata } from './admin.js';
export { GatehouseError, isGatehouseError } from '@gatehouse/errors';
export { InvalidTokenError } from './errors.js';
export type { ErrorCode } from '@gatehouse/api-types';
export { verifyWebhook, InvalidWebhookError, type WebhookRequestHeaders } from './webhooks.js';
export type { ActorType, EventData, EventFields, GatehouseEventType, GatehouseWebhookEvent } from './webhook-events.js';
