// Whose rows a custom-table statement reads or writes (docs/organizations.md), shared by the SQL text of
// queries (custom-rows-sql.ts) and the single-row statements (repos/custom-rows.ts).

/**
 * A user's id (their own rows), or an organisation's owner key ('org:<id>') with the gate that the session
 * reading has it as its active organisation and its user is a member: checked inside the statement itself,
 * so a member removed a moment ago reads and writes nothing.
 */
export type RowOwner = string | { key: string; gate: OrgGate };

export interface OrgGate {
  appId: string;
  orgId: string;
  userId: string;
  sessionId: string;
}
