/**
 * Whether node's own flags or NODE_OPTIONS name the V8 flag `name` (dashes or underscores alike, with
 * `=value` or the value as the next argument): an operator's choice the server then leaves alone.
 */
export function namesNodeFlag(execArgv: readonly string[], nodeOptions: string, name: string): boolean {
  const pattern = new RegExp(`^--${name.replace(/-/g, '[-_]')}(=|$)`);
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((flag) => pattern.test(flag));
}
