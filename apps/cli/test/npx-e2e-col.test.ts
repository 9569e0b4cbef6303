/**
 * The README's "Use it for real" commands work as written in a fresh clone: `npx e2e-col` finds
 * this CLI through the workspace's bin link (never the registry: `--offline`), and its `--help`
 * documents every exit code the CLI can end with.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { EXIT } from '../src/exit-codes.ts'
import { BIN } from './cli-process.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** The bin itself (npx finding it is the first test). */
const run = (args: string[]) =>
  promisify(execFile)(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 })

describe('npx e2e-col in this repository', () => {
  it('is the setup/up CLI, and its --help lists every exit code', async () => {
    const { stdout } = await promisify(execFile)('npx', ['--offline', 'e2e-col', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(stdout).toMatch(/^\s+e2e-col setup --link\s/m)
    expect(stdout).toMatch(/^\s+e2e-col up\s/m)
    const table = stdout.slice(stdout.indexOf('Exit codes:'))
    for (const [name, code] of Object.entries(EXIT))
      expect(table, `exit code ${code} (${name})`).toMatch(new RegExp(`^\\s*${code}  \\S`, 'm'))
  }, 90_000)

  it('is the one CLI: its --help names the home page and docs, and `e2e-col docs` reaches the sidecar’s documents CLI', async () => {
    const help = (await run(['--help'])).stdout
    expect(help).toMatch(/open your home page\s+in your browser/)
    expect(help).toMatch(/^\s+e2e-col docs list\|new\|share/m)
    // Every docs subcommand the sidecar's CLI has is named.
    const named = /e2e-col docs ([a-z|]+) \.\.\./.exec(help)?.[1]?.split('|')
    expect(named).toEqual([
      'list',
      'new',
      'share',
      'unshare',
      'role',
      'rename',
      'leave',
      'accept',
      'decline',
      'history',
      'restore',
      'review',
    ])
    expect(help).toContain('--no-open')
    const docs = (await run(['docs', '--help'])).stdout
    expect(docs).toMatch(/^e2e-col docs: your documents/)
    expect(docs).toMatch(/^\s+e2e-col docs share DOC --with/m)
    // A refused command keeps the sidecar CLI's own exit code: 3, the sidecar does not answer.
    const down = await run(['docs', 'list', '--sidecar', 'http://127.0.0.1:9']).then(
      () => 0,
      (error: { code?: number }) => error.code,
    )
    expect(down).toBe(3)
  }, 120_000)

  it('is what the README tells a person to run: setup --link, then up', () => {
    const readme = readFileSync(`${ROOT}README.md`, 'utf8')
    const section = readme.slice(readme.indexOf('## Use it for real'))
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? ''
    const commands = block
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((line) => line !== '')
    expect(commands).toEqual(['npx e2e-col setup --link', 'npx e2e-col up'])
  })
})
