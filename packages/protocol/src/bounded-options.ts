/** Validation of the numeric bounds that configure the stateful parts of this package. */
import { ProtocolError } from './errors.ts'

/**
 * Returns `value` if it is a positive safe integer.
 *
 * @throws ProtocolError `PROTO_INVALID_OPTION` naming `name` otherwise.
 */
export function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new ProtocolError('PROTO_INVALID_OPTION', `${name} must be a positive integer`)
  return value
}
