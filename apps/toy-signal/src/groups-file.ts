/**
 * The toy's groups kept in a file, written before the request that changed them is answered: a
 * client told "done" finds the group again after any stop of the toy's process, SIGKILL included
 * (no shutdown step is needed). Each write goes to a temporary file that is flushed and renamed over
 * the old one, so the file is always a whole snapshot, the last one or the one before.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ToySignalError } from './errors.ts'
import { snapshotGroups } from './group-snapshot.ts'
import type { ToySignalState } from './state.ts'

/** A groups file in use: {@link GroupsFile.save} after anything that may have changed a group. */
export interface GroupsFile {
  /** Writes the groups if they differ from what the file holds. Synchronous: runs before the answer. */
  save(): void
}

/**
 * The groups a file holds, or undefined when there is none yet.
 * @throws ToySignalError `TOY_CONFIG_INVALID` when the file is there but is not JSON
 */
export function readGroupsFile(path: string): unknown {
  if (!existsSync(path)) return undefined
  const text = readFileSync(path, 'utf8')
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new ToySignalError(
      'TOY_CONFIG_INVALID',
      `groups file ${path} is not JSON (move it away to start without its groups)`,
      { cause: error },
    )
  }
}

/** Keeps `state`'s groups in `path`, writing them once now. @throws on a folder that cannot be written */
export function keepGroupsIn(path: string, state: ToySignalState): GroupsFile {
  mkdirSync(dirname(path), { recursive: true })
  let written: string | undefined
  const save = (): void => {
    const text = JSON.stringify(snapshotGroups(state))
    if (text === written) return
    writeAtomically(path, text)
    written = text
  }
  save()
  return { save }
}

function writeAtomically(path: string, text: string): void {
  const temporary = join(dirname(path), `.${process.pid}.groups.tmp`)
  const fd = openSync(temporary, 'w')
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temporary, path)
  // The rename itself lasts once the folder's entry is flushed (a no-op where folders cannot be opened).
  try {
    const dir = openSync(dirname(path), 'r')
    try {
      fsyncSync(dir)
    } finally {
      closeSync(dir)
    }
  } catch {
    /* Windows: folders are not opened for flushing */
  }
}
