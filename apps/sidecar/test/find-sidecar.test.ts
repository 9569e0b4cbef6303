/**
 * `e2e-col docs` without --sidecar: the running sidecar is found (the demo's file from the working
 * folder up, e2e-col up's address); several running are told apart by name (`--as`); none running
 * names the addresses tried and the command to run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { DocsCliError, parseDocsArgs, runDocsCommand, type DocsCommand } from '../src/cli/docs-cli.ts'
import {
  DEMO_SIDECARS_FILE,
  candidates,
  findFailureText,
  findSidecar,
  sidecarBase,
  type SidecarCandidate,
} from '../src/cli/find-sidecar.ts'
import { runSidecar } from './child-sidecar.ts'
import { ALICE, BOB, librarySidecar, startPeopleToy } from './docs-api.ts'

const parsed = (argv: string[]): DocsCommand => {
  const r = parseDocsArgs(argv, {})
  if (r.kind !== 'docs') throw new Error(`expected a command, got ${JSON.stringify(r)}`)
  return r.command
}

/** A folder holding `.e2e-col-tmp/demo/sidecars.json` as npm start writes it, and a subfolder of it. */
function demoFolder(sidecars: unknown): { root: string; sub: string } {
  const root = mkdtempSync(join(tmpdir(), 'e2e-col-find-'))
  onTestFinished(() => rmSync(root, { recursive: true, force: true }))
  mkdirSync(join(root, '.e2e-col-tmp', 'demo'), { recursive: true })
  writeFileSync(join(root, DEMO_SIDECARS_FILE), JSON.stringify({ sidecars }))
  const sub = join(root, 'apps', 'demo')
  mkdirSync(sub, { recursive: true })
  return { root, sub }
}

/** A loopback port nothing listens on (fetch refuses well-known ones such as 9 itself). */
async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** A probe that finds exactly these running. */
const running =
  (...on: SidecarCandidate[]) =>
  async (url: string): Promise<boolean> =>
    on.some((c) => c.url === url)

const alice: SidecarCandidate = { url: 'http://127.0.0.1:7601', name: 'Alice', by: 'npm start' }
const bob: SidecarCandidate = { url: 'http://127.0.0.1:7602', name: 'Bob', by: 'npm start' }
const up: SidecarCandidate = { url: 'http://127.0.0.1:7600', by: 'e2e-col up' }

describe('finding the running sidecar', () => {
  it('reads a sidecar address as shown (ws://) or as served (http://); anything else is none', () => {
    expect(sidecarBase('ws://127.0.0.1:7601')).toBe('http://127.0.0.1:7601')
    expect(sidecarBase('http://localhost:7600/')).toBe('http://localhost:7600')
    expect(sidecarBase('wss://h:1')).toBe('https://h:1')
    expect(sidecarBase('127.0.0.1:7601')).toBeUndefined()
    expect(sidecarBase('ws://127.0.0.1:7601/v1/docs')).toBeUndefined()
  })

  it("tries e2e-col up's address and the demo's file from the working folder up, else the demo's usual ports", () => {
    const { sub } = demoFolder([
      { name: 'Alice', url: 'ws://127.0.0.1:40001' },
      { name: 'Bob', url: 'ws://127.0.0.1:40002' },
      { name: 'Mallory', url: 'javascript:alert(1)' },
    ])
    expect(candidates(sub)).toEqual([
      up,
      { url: 'http://127.0.0.1:40001', name: 'Alice', by: 'npm start' },
      { url: 'http://127.0.0.1:40002', name: 'Bob', by: 'npm start' },
    ])
    const nowhere = mkdtempSync(join(tmpdir(), 'e2e-col-nowhere-'))
    onTestFinished(() => rmSync(nowhere, { recursive: true, force: true }))
    expect(candidates(nowhere)).toEqual([up, alice, bob])
  })

  it('picks the one running, or by name; says which run when several do, and what was tried when none', async () => {
    const all = [up, alice, bob]
    expect(await findSidecar(all, undefined, running(up))).toEqual(up)
    expect(await findSidecar(all, 'bob', running(alice, bob))).toEqual(bob)
    const several = await findSidecar(all, undefined, running(alice, bob))
    expect(several).toEqual({ kind: 'several', running: [alice, bob] })
    expect(findFailureText(several as never, 'list')).toBe(
      "2 sidecars are running: Alice's sidecar (npm start, ws://127.0.0.1:7601), Bob's sidecar (npm start, ws://127.0.0.1:7602). Say whose: e2e-col docs list --as Alice",
    )
    const noSuch = await findSidecar(all, 'Carol', running(alice))
    expect(findFailureText(noSuch as never, 'list')).toContain('no sidecar of "Carol" is running; running: Alice')
    // A real probe of addresses where nothing listens.
    const port = await deadPort()
    const dead = [{ url: `http://127.0.0.1:${port}`, by: 'e2e-col up' }]
    const none = await findSidecar(dead, undefined)
    expect(none).toEqual({ kind: 'none', tried: dead })
    expect(findFailureText(none as never, 'list')).toBe(
      `no sidecar is running (tried the sidecar (e2e-col up, ws://127.0.0.1:${port})): start yours with \`npx e2e-col up\`, or the demo with \`npm start\``,
    )
  })

  it("finds the demo's two sidecars through its file: --as picks one; without it the binary names both and exits 2", async () => {
    const toy = await startPeopleToy({ contacts: { [ALICE]: { [BOB]: 'Bob' }, [BOB]: { [ALICE]: 'Alice' } } })
    const [a, b] = await Promise.all([librarySidecar(toy, ALICE), librarySidecar(toy, BOB)])
    const { sub } = demoFolder([
      { name: 'Alice', url: a.url.replace('http:', 'ws:') },
      { name: 'Bob', url: b.url.replace('http:', 'ws:') },
    ])
    await runDocsCommand(parsed(['new', 'Trip plan', '--with', BOB, '--as', 'Alice']), sub)
    expect(await runDocsCommand(parsed(['list', '--as', 'bob']), sub)).toContain(
      `Alice (${ALICE}) shared 'Trip plan' with you`,
    )
    const which = await runSidecar({}, ['docs', 'list'], sub)
    // e2e-col up's address may be taken on this machine too: both of the demo's are named either way.
    expect(which.code).toBe(2)
    expect(which.stderr).toContain(`Alice's sidecar (npm start, ${a.url.replace('http:', 'ws:')})`)
    expect(which.stderr).toContain(`Bob's sidecar (npm start, ${b.url.replace('http:', 'ws:')})`)
    expect(which.stderr).toContain('DOCS_WHICH_SIDECAR')
    const shown = await runSidecar({}, ['docs', 'list', '--sidecar', b.url.replace('http:', 'ws:')], sub)
    expect([shown.code, shown.stdout]).toEqual([0, expect.stringContaining("shared 'Trip plan' with you")])
    const port = await deadPort()
    const gone = await runDocsCommand(parsed(['list', '--sidecar', `ws://127.0.0.1:${port}`])).catch((e: unknown) => e)
    expect((gone as DocsCliError).message).toMatch(
      new RegExp(
        `^the sidecar at ws://127\\.0\\.0\\.1:${port} does not answer \\(.*ECONNREFUSED.*\\): start it \\(\`npx e2e-col up\``,
      ),
    )
  }, 60_000)
})
