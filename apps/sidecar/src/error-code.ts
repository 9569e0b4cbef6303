/**
 * Reading a thrown value without trusting its class: e2e-col's errors and the daemon client's carry
 * a stable string `code` (branch on it, not on `instanceof`, which fails across package copies),
 * and anything may be thrown, so its message is read defensively.
 */

/** The stable `code` of a thrown value, or undefined when it carries none. */
export function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const code: unknown = (error as { code?: unknown }).code
  return typeof code === 'string' ? code : undefined
}

/** The message of a thrown value (its text when it is not an error). */
export function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const message: unknown = (error as { message?: unknown }).message
    if (typeof message === 'string') return message
  }
  return String(error)
}
