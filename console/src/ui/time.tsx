/** A moment as people read it (UTC, to the minute), with the exact time in dateTime. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <>never</>;
  return <time dateTime={at}>{`${at.slice(0, 10)} ${at.slice(11, 16)} UTC`}</time>;
}
