/**
 * A package-lock.json for an app outside the repository that installs the packed tarballs: every
 * third-party package at the exact version (and place in the tree) this repository's lockfile has,
 * so `npm ci --offline` installs it from the npm cache alone (after `npm ci` here the cache holds
 * every one of them) and never asks the registry.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'

interface LockEntry {
  version?: string
  resolved?: string
  link?: boolean
  integrity?: string
  bin?: Record<string, string>
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  dev?: boolean
  devOptional?: boolean
  peer?: boolean
  [field: string]: unknown
}

/**
 * `tarballs`: package name → tarball path, copied by the caller into `<app>/tarballs/`.
 * `others`: the app's third-party dependencies (name → exact version, as in the repository).
 */
export function appLockfile(
  repoLockfile: string,
  tarballs: ReadonlyMap<string, string>,
  others: Readonly<Record<string, string>>,
): { manifestDependencies: Record<string, string>; lockfile: string } {
  const repo = (JSON.parse(readFileSync(repoLockfile, 'utf8')) as { packages: Record<string, LockEntry> }).packages
  const dependencies: Record<string, string> = { ...others }
  for (const [name, file] of tarballs) dependencies[name] = `file:tarballs/${basename(file)}`

  // Node's lookup: the nearest node_modules/<name> from `from` up to the root.
  const find = (from: string, name: string): string | undefined => {
    for (let at = from; ;) {
      const candidate = `${at === '' ? '' : `${at}/`}node_modules/${name}`
      if (repo[candidate] !== undefined) return candidate
      if (at === '') return undefined
      const parent = at.lastIndexOf('/node_modules/')
      at = parent < 0 ? '' : at.slice(0, parent)
    }
  }
  const packages: Record<string, LockEntry> = { '': { name: 'installed-app', dependencies } }
  const queue: [string, string[], boolean][] = [['', Object.keys(dependencies), true]]
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [from, names, required] = next
    for (const name of names) {
      const at = find(from, name)
      if (at === undefined) {
        // Optional and peer dependencies the repository did not install are not needed either.
        if (required) throw new Error(`${name} (a dependency at '${from}') is not in ${repoLockfile}`)
        continue
      }
      if (packages[at] !== undefined) continue
      const entry = repo[at] as LockEntry
      let copy: LockEntry
      if (entry.link === true) {
        const file = tarballs.get(name)
        const manifest = repo[entry.resolved ?? ''] as LockEntry
        if (file === undefined) throw new Error(`${name} is a workspace package with no tarball`)
        copy = {
          version: manifest.version ?? '',
          resolved: `file:tarballs/${basename(file)}`,
          integrity: `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`,
          ...(manifest.bin === undefined ? {} : { bin: manifest.bin }),
          ...(manifest.dependencies === undefined ? {} : { dependencies: manifest.dependencies }),
          // yjs, y-protocols and lib0 are peers of the client: npm installs them beside it.
          ...(manifest.peerDependencies === undefined ? {} : { peerDependencies: manifest.peerDependencies }),
        }
      } else {
        const { dev: _dev, devOptional: _devOptional, peer: _peer, ...rest } = entry
        copy = rest
      }
      packages[at] = copy
      queue.push([at, Object.keys(copy.dependencies ?? {}), true])
      queue.push([
        at,
        [...Object.keys(copy.optionalDependencies ?? {}), ...Object.keys(copy.peerDependencies ?? {})],
        false,
      ])
    }
  }
  return {
    manifestDependencies: dependencies,
    lockfile: `${JSON.stringify({ name: 'installed-app', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  }
}
