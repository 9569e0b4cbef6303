/**
 * For tests that read what was logged: a logger whose lines are kept as written and parsed.
 */
import { createLogger, type Logger } from './logger.ts'

/** One parsed log line. */
export interface LogLine {
  level: number
  msg: string
  [field: string]: unknown
}

export interface CapturedLogs {
  readonly logger: Logger
  /** Every line so far, parsed, in order (the same array as lines come). */
  readonly lines: LogLine[]
  /** Everything written, as text. */
  text(): string
}

/** A logger at `level` (default `info`) that keeps what it writes. */
export function captureLogs(level = 'info'): CapturedLogs {
  const written: string[] = []
  const lines: LogLine[] = []
  const logger = createLogger(level, {
    write: (line: string) => {
      written.push(line)
      lines.push(JSON.parse(line) as LogLine)
    },
  })
  return { logger, lines, text: () => written.join('') }
}
