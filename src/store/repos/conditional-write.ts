// The answer of a conditional write (single-use consumption, a revoke, a claim): the statement's own
// conditions decide, so of callers racing on one row, on any node, exactly one sees its row come back.

/**
 * Runs a write that returns its row's key (`.returning(...)`) and answers whether it wrote a row: true for
 * the one caller whose conditions still held. A write without `returning` does not type-check (its result
 * object would always be there).
 */
export async function wroteOne(write: { executeTakeFirst(): Promise<Record<string, unknown> | undefined> }): Promise<boolean> {
  return (await write.executeTakeFirst()) !== undefined;
}
