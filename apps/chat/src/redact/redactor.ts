import { knownSecretValues, maskKnownValues } from './known-values.ts'
import { maskGeneric } from './generic-rules.ts'
import { maskProviderSecrets } from './provider-rules.ts'

/** Masks secrets in text bound for the group, the terminal or a log. */
export interface Redactor {
  /** All three layers: known values, the secretlint preset, the generic layer. */
  redact(text: string): Promise<string>
  /** Known values and the generic layer only: for synchronous log lines. */
  redactSync(text: string): string
}

/**
 * Builds the redactor for one agent environment. Layers run from most to least precise: the exact
 * values of secret-looking variables of `env`, then the provider preset, then the generic shapes.
 * Biased to over-redaction; each layer leaves earlier markers alone, so redaction is idempotent.
 */
export function createRedactor(options: {
  env?: Readonly<Record<string, string | undefined>>
  extraValues?: readonly string[]
}): Redactor {
  const values = [...new Set([...knownSecretValues(options.env ?? {}), ...(options.extraValues ?? [])])]
    .filter((v) => v.length > 0)
    .sort((a, b) => b.length - a.length)
  const redactSync = (text: string): string => maskGeneric(maskKnownValues(text, values))
  return {
    async redact(text) {
      return maskGeneric(await maskProviderSecrets(maskKnownValues(text, values)))
    },
    redactSync,
  }
}
