/**
 * Structured JSON logs with pino. Bodies, payloads and tokens are never logged; phone numbers are
 * masked wherever they appear (fields named like numbers, and any E.164 text in messages).
 */
import { pino, type Logger, type DestinationStream } from 'pino'
import { maskNumbersIn } from '@e2e-col/signal-cli'

export type { Logger }

const SECRET_PATHS = [
  'body',
  'payload',
  'message.body',
  'token',
  'authorization',
  'headers.authorization',
  '*.body',
  '*.payload',
  '*.token',
]

/** Creates the sidecar's logger; `destination` lets tests capture lines. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'e2e-col-sidecar' },
      redact: { paths: SECRET_PATHS, censor: '[redacted]' },
      hooks: {
        logMethod(args, method) {
          // Mask E.164 numbers in every string argument and one level into object arguments.
          const masked = args.map((a: unknown) => {
            if (typeof a === 'string') return maskNumbersIn(a)
            if (typeof a === 'object' && a !== null && !(a instanceof Error)) {
              return Object.fromEntries(
                Object.entries(a).map(([k, v]) => [k, typeof v === 'string' ? maskNumbersIn(v) : v]),
              )
            }
            return a
          })
          method.apply(this, masked as Parameters<typeof method>)
        },
      },
      serializers: {
        err: (e: Error & { code?: unknown }) => ({ type: e.name, code: e.code, message: maskNumbersIn(e.message) }),
      },
    },
    destination,
  )
}
