/** The text that replaces a secret: `[REDACTED:<kind>]`. Kinds are short rule names, never data. */
export function marker(kind: string): string {
  return `[REDACTED:${kind.replace(/[^a-z0-9-]/gi, '-').slice(0, 48)}]`
}
