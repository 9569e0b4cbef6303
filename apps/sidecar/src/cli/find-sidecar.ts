/**
 * Which sidecar `e2e-col docs` talks to when none is named: the one that answers among `e2e-col
 * up`'s address and the demo's (`npm start` names its sidecars in `.e2e-col-tmp/demo/sidecars.json`,
 * found from the working folder up; without it its usual addresses are tried). A person who only
 * ran `npm start` never needs a port: `--as Alice` picks one of the demo's two sidecars by name.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { escapeControls } from '@e2e-col/protocol'

/** The file `npm start` writes while it runs, relative to the repository. */
export const DEMO_SIDECARS_FILE = join('.e2e-col-tmp', 'demo', 'sidecars.json')

/** A sidecar that may be running. */
export interface SidecarCandidate {
  /** Its http:// base URL. */
  readonly url: string
  /** Whose it is, when known ("Alice"). */
  readonly name?: string
  /** What started it: "e2e-col up" or "npm start". */
  readonly by: string
  /** How to start it again when it is stopped ("type a and Enter in the terminal running npm start"). */
  readonly restart?: string
}

/** `e2e-col up`'s default address (its sidecar-config.ts). */
const UP_DEFAULT: SidecarCandidate = { url: 'http://127.0.0.1:7600', by: 'e2e-col up' }
/** The demo's default addresses, tried when its file is not found. */
const DEMO_DEFAULTS: readonly SidecarCandidate[] = [
  { url: 'http://127.0.0.1:7601', name: 'Alice', by: 'npm start' },
  { url: 'http://127.0.0.1:7602', name: 'Bob', by: 'npm start' },
]
/** How long one address may take to answer before it counts as not running. */
export const PROBE_TIMEOUT_MS = 2_000
/** Most sidecars read from the demo's file (it names two). */
const MAX_FILE_SIDECARS = 8

/**
 * A sidecar address as a person may have seen it (`ws://127.0.0.1:7601` in a page's Details, the
 * sidecar's `http://…`), as the http(s) base URL the API is at; undefined when it is not one.
 */
export function sidecarBase(address: string): string | undefined {
  const m = /^(wss?|https?):\/\/([^/\s?#]+)\/?$/i.exec(address.trim())
  if (m === null) return undefined
  const scheme = (m[1] ?? '').toLowerCase()
  return `${scheme === 'ws' || scheme === 'http' ? 'http' : 'https'}://${m[2] ?? ''}`
}

/** An http base as the pages show it (`ws://…`). */
export const shownAddress = (base: string): string => base.replace(/^http/, 'ws')

/** The demo's sidecars file from `cwd` up, or undefined. */
export function findDemoFile(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const file = join(dir, DEMO_SIDECARS_FILE)
    if (existsSync(file)) return file
    if (dirname(dir) === dir) return undefined
  }
}

/** The demo's sidecars as its file names them; a file that does not parse names none. */
function readDemoFile(file: string): SidecarCandidate[] {
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { sidecars?: unknown }
    if (!Array.isArray(json.sidecars)) return []
    return json.sidecars.slice(0, MAX_FILE_SIDECARS).flatMap((s: unknown) => {
      const { name, url, restart } = (s ?? {}) as { name?: unknown; url?: unknown; restart?: unknown }
      const base = typeof url === 'string' ? sidecarBase(url) : undefined
      if (base === undefined || typeof name !== 'string') return []
      const again = typeof restart === 'string' ? { restart: restart.slice(0, 200) } : {}
      return [{ url: base, name: name.slice(0, 64), by: 'npm start', ...again }]
    })
  } catch {
    return []
  }
}

/** Every address worth trying from `cwd`: `e2e-col up`'s, then the demo's. */
export function candidates(cwd: string): SidecarCandidate[] {
  const file = findDemoFile(cwd)
  const demo = file === undefined ? [] : readDemoFile(file)
  return [UP_DEFAULT, ...(demo.length === 0 ? DEMO_DEFAULTS : demo)]
}

/** "Alice's sidecar (npm start, ws://127.0.0.1:7601)". */
export const describeCandidate = (c: SidecarCandidate): string =>
  escapeControls(`${c.name === undefined ? 'the' : `${c.name}'s`} sidecar (${c.by}, ${shownAddress(c.url)})`)

/** Whether something answers HTTP at `base` (any status: a sidecar with Signal away still answers). */
export async function answers(base: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  try {
    const res = await fetch(`${base}/v1/docs`, { signal: AbortSignal.timeout(timeoutMs) })
    await res.body?.cancel()
    return true
  } catch {
    return false
  }
}

/** Why no single sidecar was picked: several run (say which), or none answers (`stopped`: the one named). */
export type FindFailure =
  | { kind: 'none'; tried: readonly SidecarCandidate[] }
  | { kind: 'stopped'; candidate: SidecarCandidate }
  | { kind: 'several'; running: readonly SidecarCandidate[] }
  | { kind: 'no-such'; as: string; running: readonly SidecarCandidate[] }

/**
 * Picks the sidecar: the one that answers, or with `as` the running one of that name.
 * @returns the candidate, or why none was picked
 */
export async function findSidecar(
  list: readonly SidecarCandidate[],
  as: string | undefined,
  probe: (base: string) => Promise<boolean> = answers,
): Promise<SidecarCandidate | FindFailure> {
  const up = await Promise.all(list.map(async (c) => ((await probe(c.url)) ? c : undefined)))
  const running = up.filter((c): c is SidecarCandidate => c !== undefined)
  if (as !== undefined) {
    const isNamed = (c: SidecarCandidate): boolean => c.name?.toLowerCase() === as.toLowerCase()
    const stopped = list.find(isNamed)
    return (
      running.find(isNamed) ??
      (stopped === undefined ? { kind: 'no-such', as, running } : { kind: 'stopped', candidate: stopped })
    )
  }
  if (running.length === 1 && running[0] !== undefined) return running[0]
  return running.length === 0 ? { kind: 'none', tried: list } : { kind: 'several', running }
}

const listed = (cs: readonly SidecarCandidate[]): string => cs.map(describeCandidate).join(', ')

/** The sentence a failure is told in, with the one thing to do. */
export function findFailureText(f: FindFailure, action: string): string {
  switch (f.kind) {
    case 'none':
      return `no sidecar is running (tried ${listed(f.tried)}): start yours with \`npx e2e-col up\`, or the demo with \`npm start\``
    case 'several': {
      const named = f.running.find((c) => c.name !== undefined)
      return `${f.running.length} sidecars are running: ${listed(f.running)}. Say whose: ${
        named?.name === undefined
          ? `e2e-col docs ${action} --sidecar ${shownAddress(f.running[0]?.url ?? '')}`
          : escapeControls(`e2e-col docs ${action} --as ${named.name}`)
      }`
    }
    case 'stopped': {
      const c = f.candidate
      return escapeControls(
        `${describeCandidate(c)} does not answer: ${c.restart ?? (c.by === 'npm start' ? 'start the demo with `npm start`' : 'start it with `npx e2e-col up`')}`,
      )
    }
    case 'no-such':
      return escapeControls(
        f.running.length === 0
          ? `no sidecar of ${JSON.stringify(f.as)} is running, nor any other: start the demo with \`npm start\``
          : `no sidecar of ${JSON.stringify(f.as)} is running; running: ${listed(f.running)}`,
      )
  }
}
