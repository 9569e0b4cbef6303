import { marker } from './marker.ts'

/** Names of environment variables whose values are treated as secrets. */
const SECRET_NAME =
  /(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|AUTH|COOKIE|SESSION|DSN|DATABASE_URL|CONNECTION_STRING|WEBHOOK)/i

/** Shortest value masked verbatim: shorter ones would mask ordinary words all over the output. */
export const MIN_KNOWN_VALUE_LENGTH = 8

/**
 * The exact values of secret-looking variables of `env` (the agent's environment): long enough,
 * deduplicated, longest first so a secret containing another is masked whole.
 */
export function knownSecretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>()
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !SECRET_NAME.test(name)) continue
    const trimmed = value.trim()
    if (trimmed.length >= MIN_KNOWN_VALUE_LENGTH) values.add(trimmed)
  }
  return [...values].sort((a, b) => b.length - a.length)
}

/** Replaces every occurrence of each known value with `[REDACTED:env]`. */
export function maskKnownValues(text: string, values: readonly string[]): string {
  let out = text
  for (const value of values) {
    if (out.includes(value)) out = out.split(value).join(marker('env'))
  }
  return out
}
