// The shapes Gatehouse answers, named from the generated OpenAPI types (@gatehouse/api-types, `npm run
// openapi`), so the client cannot drift from the routes. Types only: nothing here reaches a bundle.
import type { Ok } from '@gatehouse/api-types';

export type { Body, Ok } from '@gatehouse/api-types';

/** What `GET /v1/me` answers: the signed-in user. */
export type User = Ok<'getMe'>;
/** One entry of "where you're signed in" (`GET /v1/me/sessions`). */
export type DeviceSession = Ok<'listMySessions'>['sessions'][number];
/** The hashcash challenge of `POST /v1/challenges`. */
export type Challenge = Ok<'createChallenge'>;
/** A bucket, as `GET /v1/buckets` lists it. */
export type Bucket = Ok<'getBucket'>;
/** An object's record (`PUT .../objects/{key}`). */
export type StoredObject = Ok<'putObject'>;
/** A table with its columns. */
export type Table = Ok<'getTable'>;
/** The storage figures of the app's tables. */
export type TableStorage = Ok<'getTableStorage'>;

/** The tokens of a sign-in, as the API answers them. */
export interface Tokens {
  access_token: string;
  /** Missing from a refresh by cookie: the cookies were renewed and no page script sees a refresh token. */
  refresh_token?: string;
  user_id: string;
  session_id: string;
}

/**
 * The session the client keeps. With cookies (same site) the tokens live in the API's HttpOnly cookies and
 * are never here; with Bearer tokens they are, for the caller to send to its own servers.
 */
export interface Session {
  user_id: string;
  session_id: string;
  /** When the access token expires, in ms on this machine's clock (from the token's lifetime, not its `exp`: clocks differ). */
  expires_at: number;
  access_token?: string;
  refresh_token?: string;
}

export type AuthEvent = 'INITIAL_SESSION' | 'SIGNED_IN' | 'SIGNED_OUT' | 'TOKEN_REFRESHED' | 'USER_UPDATED';
export type AuthListener = (event: AuthEvent, session: Session | null) => void;
