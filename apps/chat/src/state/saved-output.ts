/**
 * The saved output of a turn too long to post. While the turn runs, its stdout goes raw to
 * `<stem>.turn-<n>.output.raw` (0600, output-capture.ts); once it ends, the file is redacted like a
 * reply, window by window, into `<stem>.turn-<n>.output.txt` (0600) and the raw file is removed,
 * so what stays on disk, and what `output` sends to the group, is redacted. A raw file left by a
 * chat that died mid-turn is removed at the next start.
 */
import { closeSync, openSync, readdirSync, readSync, rmSync, statSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { Redactor } from '../redact/redactor.ts'
import { chatStem } from './chat-state.ts'

/**
 * Bytes read per redaction window. A window is cut at its last newline, and before a PEM block it
 * opens without closing, so a secret never straddles two windows unless one line is longer than this.
 */
export const REDACT_WINDOW_BYTES = 1024 * 1024

export const rawOutputPath = (root: string, groupId: string, turn: number): string =>
  `${chatStem(root, groupId)}.turn-${turn}.output.raw`
export const savedOutputPath = (root: string, groupId: string, turn: number): string =>
  `${chatStem(root, groupId)}.turn-${turn}.output.txt`

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/g
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/g

function lastIndex(re: RegExp, text: string): number {
  let at = -1
  for (const m of text.matchAll(re)) at = m.index
  return at
}

/**
 * Where to cut `text` so the part before can be redacted on its own: after the last newline, or
 * before a private-key block opened and not closed. `text.length` when nothing is left to wait for.
 */
export function windowCut(text: string, final: boolean): number {
  if (final) return text.length
  let cut = text.lastIndexOf('\n') + 1
  const begin = lastIndex(PEM_BEGIN, text.slice(0, cut))
  if (begin > lastIndex(PEM_END, text.slice(0, cut))) cut = text.lastIndexOf('\n', begin) + 1
  // No line end (or a block from the very start): a window that long is redacted as it is.
  return cut === 0 ? text.length : cut
}

/** Redacts a text of any size in windows (each within about {@link REDACT_WINDOW_BYTES}). */
export async function redactInWindows(
  text: string,
  redactor: Redactor,
  windowChars = REDACT_WINDOW_BYTES,
): Promise<string> {
  let out = ''
  let at = 0
  while (at < text.length) {
    const end = Math.min(text.length, at + windowChars)
    const window = text.slice(at, end)
    const cut = windowCut(window, end === text.length)
    out += await redactor.redact(window.slice(0, cut))
    at += cut
  }
  return out
}

/**
 * Redacts the raw spill `raw` into `dest` (0600), window by window, then removes `raw`. Memory
 * stays within two windows whatever the file's size. Resolves to the bytes written.
 */
export async function saveRedactedOutput(
  raw: string,
  dest: string,
  redactor: Redactor,
  windowBytes = REDACT_WINDOW_BYTES,
): Promise<number> {
  const input = openSync(raw, 'r')
  let output: number | undefined
  let written = 0
  try {
    output = openSync(dest, 'w', 0o600)
    const decoder = new TextDecoder('utf-8', { fatal: false })
    const buf = Buffer.alloc(windowBytes)
    let carry = ''
    for (;;) {
      const n = readSync(input, buf, 0, windowBytes, null)
      const final = n === 0
      const text = carry + (final ? decoder.decode() : decoder.decode(buf.subarray(0, n), { stream: true }))
      const cut = windowCut(text, final || text.length > 2 * windowBytes)
      const clean = Buffer.from(await redactor.redact(text.slice(0, cut)), 'utf8')
      writeSync(output, clean)
      written += clean.length
      carry = text.slice(cut)
      if (final) break
    }
  } finally {
    closeSync(input)
    if (output !== undefined) closeSync(output)
    rmSync(raw, { force: true })
  }
  return written
}

/** Removes raw spills of this chat that a process which died mid-turn left behind. */
export function removeRawOutputs(root: string, groupId: string): string[] {
  const stem = chatStem(root, groupId)
  const prefix = `${basename(stem)}.turn-`
  const removed: string[] = []
  let names: string[]
  try {
    names = readdirSync(dirname(stem))
  } catch {
    return removed
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.output.raw')) continue
    const file = join(dirname(stem), name)
    rmSync(file, { force: true })
    removed.push(file)
  }
  return removed
}

/** A saved output on disk. */
export interface SavedOutput {
  turn: number
  file: string
  bytes: number
}

/** The saved output of `turn`, or of the latest turn that has one; `undefined` when there is none. */
export function findSavedOutput(root: string, groupId: string, turn?: number): SavedOutput | undefined {
  const stem = chatStem(root, groupId)
  const pattern = /^\.turn-(\d+)\.output\.txt$/
  let names: string[]
  try {
    names = readdirSync(dirname(stem))
  } catch {
    return undefined
  }
  let best: number | undefined
  for (const name of names) {
    if (!name.startsWith(basename(stem))) continue
    const m = pattern.exec(name.slice(basename(stem).length))
    const t = Number(m?.[1])
    if (m === null || (turn !== undefined && t !== turn)) continue
    if (best === undefined || t > best) best = t
  }
  if (best === undefined) return undefined
  const file = savedOutputPath(root, groupId, best)
  return { turn: best, file, bytes: statSync(file).size }
}

/**
 * The start of a saved output, at most `maxBytes` UTF-8 bytes, redacted again (the redactor of this
 * run may know values the one that saved it did not), cut at a code point boundary.
 */
export async function readSavedOutput(
  saved: SavedOutput,
  maxBytes: number,
  redactor: Redactor,
): Promise<{ data: Uint8Array; whole: boolean }> {
  const fd = openSync(saved.file, 'r')
  let head: Buffer
  try {
    head = Buffer.alloc(Math.min(maxBytes, saved.bytes))
    let at = 0
    while (at < head.length) {
      const n = readSync(fd, head, at, head.length - at, at)
      if (n === 0) break
      at += n
    }
    head = head.subarray(0, at)
  } finally {
    closeSync(fd)
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head).replace(/\uFFFD+$/, '')
  const clean = Buffer.from(await redactInWindows(text, redactor), 'utf8')
  if (clean.length <= maxBytes) return { data: clean, whole: saved.bytes <= maxBytes }
  // Markers can be longer than what they mask: cut again, at a code point boundary.
  let end = maxBytes
  while (end > 0 && ((clean[end] as number) & 0xc0) === 0x80) end--
  return { data: clean.subarray(0, end), whole: false }
}
