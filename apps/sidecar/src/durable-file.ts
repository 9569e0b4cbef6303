/**
 * A small file the sidecar keeps beside its store, written whole: a temporary file, flushed,
 * renamed over the old one, the folder flushed. Durable when `writeDurably` returns (it survives
 * SIGKILL and power loss as the store does); a crash in between leaves the old file whole.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { StoreError } from './errors.ts'

/** Flushes `path` (a file or a folder) to disk. */
function flush(path: string, flags: 'r' | 'r+'): void {
  const fd = openSync(path, flags)
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Replaces `path` with `text`, durable when this returns. @throws the file system's error */
export function writeDurably(path: string, text: string): void {
  const tmp = `${path}.tmp`
  writeFileSync(tmp, text)
  flush(tmp, 'r+')
  renameSync(tmp, path)
  flush(dirname(path), 'r')
}

/** The file's text, undefined when there is no such file. @throws the file system's other errors */
export function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined
    throw error
  }
}

/** A kept file's read and write, for the feature that owns its text. */
export interface KeptFile {
  /** The file's text, undefined when there is none. @throws StoreError when it cannot be read */
  read(): string | undefined
  /** Replaces the file, durable when this returns. @throws StoreError when it cannot be written */
  write(text: string): void
}

/** The file at `path`, its file-system failures as StoreError (SIDECAR_STORE_FAILED) naming `what` it holds. */
export function keptFile(path: string, what: string): KeptFile {
  return {
    read() {
      try {
        return readIfThere(path)
      } catch (error) {
        throw new StoreError(path, `cannot read ${what}`, { cause: error })
      }
    },
    write(text) {
      try {
        writeDurably(path, text)
      } catch (error) {
        throw new StoreError(path, `cannot write ${what}`, { cause: error })
      }
    },
  }
}
