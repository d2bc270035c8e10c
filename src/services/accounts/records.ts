import { Type, type Static } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../wire-formats.js';

// docs/privacy.md: the records of a user's export (user-export.ts) that it declares once: the route's schema
// (http/routes/user-deletion.ts) and the type the store's rows are checked against.

/** One of the user's objects, its metadata only (repos/user-objects.ts pageUserObjects gives these rows). */
export const UserObjectRecord = Type.Object({
  bucket_id: Uuid,
  bucket_name: Type.String(),
  key: Type.String(),
  size_bytes: Type.Integer(),
  content_type: Type.String(),
  created_at: Timestamp,
});

export type UserObject = Static<typeof UserObjectRecord>;
