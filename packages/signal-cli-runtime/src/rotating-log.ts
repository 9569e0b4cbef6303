/**
 * An append-only log file bounded on disk: when a write would take it past `maxBytes`, `log` becomes
 * `log.1`, `log.1` becomes `log.2`, … and the oldest beyond `keep` is deleted. Synchronous writes:
 * the daemon's output is small and a crash must not lose the lines that explain it.
 */
import { appendFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs'

/** Bounds of a {@link RotatingLog}. */
export interface RotatingLogOptions {
  /** Largest size of the current file before it is rotated (default 5 MiB). */
  readonly maxBytes?: number
  /** Rotated files kept besides the current one (default 3). */
  readonly keep?: number
}

/** A bounded log file. */
export interface RotatingLog {
  readonly path: string
  write(text: string): void
}

/** Opens (creates on first write, mode 0600) a rotating log at `path`. */
export function openRotatingLog(path: string, options: RotatingLogOptions = {}): RotatingLog {
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024
  const keep = options.keep ?? 3
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError('maxBytes must be a positive integer')
  if (!Number.isSafeInteger(keep) || keep < 0) throw new RangeError('keep must be a non-negative integer')
  let size = existsSync(path) ? statSync(path).size : 0
  const rotate = (): void => {
    rmSync(`${path}.${keep}`, { force: true })
    for (let i = keep - 1; i >= 1; i--) if (existsSync(`${path}.${i}`)) renameSync(`${path}.${i}`, `${path}.${i + 1}`)
    if (keep > 0) renameSync(path, `${path}.1`)
    else rmSync(path, { force: true })
    size = 0
  }
  return {
    path,
    write(text) {
      const bytes = Buffer.byteLength(text)
      if (size > 0 && size + bytes > maxBytes) rotate()
      appendFileSync(path, text, { mode: 0o600 })
      size += bytes
    },
  }
}
