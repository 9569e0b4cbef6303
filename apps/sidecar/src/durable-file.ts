/**
 * A small file the sidecar keeps beside its store, written whole: a temporary file, flushed,
 * renamed over the old one, the folder flushed. Durable when `writeDurably` returns (it survives
 * SIGKILL and power loss as the store does); a crash in between leaves the old file whole.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

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
