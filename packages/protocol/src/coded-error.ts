/**
 * The base of e2e-col's error classes: a stable string `code` to branch on, never the message text
 * (which may change). Each package narrows `C` to its own codes and names its class with a field
 * (`override readonly name = '…'`), which a minified build keeps.
 */
export class CodedError<C extends string = string> extends Error {
  /** Stable code: match on this, not on `message` or `instanceof` across package copies. */
  readonly code: C

  constructor(code: C, message: string, options?: ErrorOptions) {
    super(message, options)
    this.code = code
  }
}
