import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { buildTurnArgv, expandTemplate, parseCommandTemplate } from '../src/agent/argv.ts'
import { probeResumeSupport } from '../src/agent/resume-probe.ts'
import { runTurn } from '../src/agent/turn-runner.ts'
import { isAlive } from './harness.ts'

const FAKE = fileURLToPath(new URL('./fixtures/fake-agent.mjs', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'e2e-col-chat-runner-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const base = {
  env: { ...process.env, FAKE_AGENT_SECRET: 'zz-known-env-secret-value-31337' },
  graceMs: 300,
  maxOutputBytes: 64 * 1024,
  tailBytes: 2048,
}
const fake = (prompt: string) => [process.execPath, FAKE, '--session-id', 'sid-1', '-p', prompt]

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('turn argv', () => {
  it('copilot: pinned session, silent, prompt as one element, each tool allowed by name', () => {
    expect(
      buildTurnArgv({
        agent: 'copilot',
        sessionId: 'S',
        prompt: 'a "b"; rm -rf /',
        allowTools: ['view', 'shell(git log)'],
        allTools: false,
        sessionStarted: true,
      }),
    ).toEqual([
      'copilot',
      '--session-id',
      'S',
      '--no-color',
      '-s',
      '-p',
      'a "b"; rm -rf /',
      '--allow-tool',
      'view',
      '--allow-tool',
      'shell(git log)',
    ])
  })
  it('copilot: appends optional flags the probe found, such as --no-ask-user', () => {
    expect(
      buildTurnArgv({
        agent: 'copilot',
        sessionId: 'S',
        prompt: 'p',
        allowTools: ['view'],
        allTools: false,
        sessionStarted: true,
        optionalFlags: ['--no-ask-user'],
      }).at(-1),
    ).toBe('--no-ask-user')
  })
  it('copilot: --dangerous-all-tools maps to --allow-all-tools, never --allow-all', () => {
    const argv = buildTurnArgv({
      agent: 'copilot',
      sessionId: 'S',
      prompt: 'p',
      allowTools: ['view'],
      allTools: true,
      sessionStarted: true,
    })
    expect(argv).toContain('--allow-all-tools')
    expect(argv).not.toContain('--allow-all')
    expect(argv).not.toContain('--allow-tool')
  })
  it('copilot: read-only defaults when no tool is given', () => {
    expect(
      buildTurnArgv({
        agent: 'copilot',
        sessionId: 'S',
        prompt: 'p',
        allowTools: [],
        allTools: false,
        sessionStarted: false,
      }),
    ).toEqual(expect.arrayContaining(['--allow-tool', 'view', 'grep', 'glob', 'shell(git status)']))
  })
  it('claude: --session-id on the first turn, --resume afterwards', () => {
    expect(
      buildTurnArgv({
        agent: 'claude',
        sessionId: 'S',
        prompt: 'p',
        allowTools: ['Read'],
        allTools: false,
        sessionStarted: false,
      }),
    ).toEqual(['claude', '-p', 'p', '--session-id', 'S', '--allowedTools', 'Read'])
    expect(
      buildTurnArgv({
        agent: 'claude',
        sessionId: 'S',
        prompt: 'p',
        allowTools: ['Read', 'Grep'],
        allTools: false,
        sessionStarted: true,
      }),
    ).toEqual(['claude', '-p', 'p', '--resume', 'S', '--allowedTools', 'Read,Grep'])
  })
  it('command: fills {sessionId} and {prompt}, repeats elements holding {allowTool}', () => {
    expect(
      expandTemplate(['a', '--s={sessionId}', '--allow-tool', '{allowTool}', '-p', '{prompt}'], {
        sessionId: 'S',
        prompt: 'hi {x}',
        allowTools: ['t1', 't2'],
      }),
    ).toEqual(['a', '--s=S', '--allow-tool', 't1', 't2', '-p', 'hi {x}'])
    expect(parseCommandTemplate('["my agent", "-p", "{prompt}"]')).toEqual(['my agent', '-p', '{prompt}'])
    expect(parseCommandTemplate('agent --sid {sessionId} {prompt}')).toEqual([
      'agent',
      '--sid',
      '{sessionId}',
      '{prompt}',
    ])
    expect(() => parseCommandTemplate('agent --no-prompt')).toThrow(expect.objectContaining({ code: 'CHAT_USAGE' }))
  })
})

describe('resume probe', () => {
  it('accepts an agent whose help lists --session-id', async () => {
    const shim = join(dir, 'copilot')
    const { writeFileSync, chmodSync } = await import('node:fs')
    writeFileSync(shim, `#!/bin/sh\necho "  --session-id <id>  resume"\necho "  --no-ask-user      never ask"\n`)
    chmodSync(shim, 0o755)
    await expect(probeResumeSupport({ agent: 'copilot', program: shim, env: process.env })).resolves.toEqual({
      optionalFlags: ['--no-ask-user'],
    })
  })
  it('exits 5 for an agent without --session-id, or one that is not installed', async () => {
    const { writeFileSync, chmodSync } = await import('node:fs')
    const old = join(dir, 'old-copilot')
    writeFileSync(old, `#!/bin/sh\necho "usage: copilot -p"\n`)
    chmodSync(old, 0o755)
    await expect(probeResumeSupport({ agent: 'copilot', program: old, env: process.env })).rejects.toMatchObject({
      code: 'CHAT_AGENT_NO_RESUME',
      exitCode: 5,
    })
    await expect(
      probeResumeSupport({ agent: 'claude', program: join(dir, 'nope'), env: process.env }),
    ).rejects.toMatchObject({ exitCode: 5 })
    await expect(
      probeResumeSupport({ agent: 'command', commandTemplate: ['x', '{prompt}'], env: process.env }),
    ).rejects.toMatchObject({ exitCode: 5 })
  })
})

describe('turn runner', () => {
  it('returns stdout of a successful turn', async () => {
    const r = await runTurn({ ...base, argv: fake('echo hello') })
    expect(r).toMatchObject({ outcome: 'ok', exitCode: 0 })
    expect(r.stdout).toBe('session=sid-1 prompt=echo hello allow=\n')
  })

  it('reports a crash with its exit status and a tail of stderr', async () => {
    const r = await runTurn({ ...base, argv: fake('crash') })
    expect(r).toMatchObject({ outcome: 'failed', exitCode: 3 })
    expect(r.tail).toContain('fatal: cannot continue')
  })

  it('reports an agent that is not installed as a failure, not a throw', async () => {
    const r = await runTurn({ ...base, argv: [join(dir, 'missing-agent'), '-p', 'x'] })
    expect(r).toMatchObject({ outcome: 'failed', spawnError: 'ENOENT' })
  })

  it('drains 10,000 lines without blocking and keeps memory bounded', async () => {
    const r = await runTurn({ ...base, maxOutputBytes: 16 * 1024, argv: fake('lines 10000') })
    expect(r.outcome).toBe('ok')
    expect(r.stdout.startsWith('line 1 of 10000\n')).toBe(true)
    expect(new TextEncoder().encode(r.stdout).length).toBeLessThanOrEqual(16 * 1024)
    expect(r.droppedStdoutBytes).toBeGreaterThan(100_000)
    expect(r.tail).toContain('line 10000 of 10000')
  })

  it('over the memory bound, writes the whole stdout to the spill file (0600) and counts every byte', async () => {
    const spillPath = join(dir, 'spill.txt')
    const seen: number[] = []
    const r = await runTurn({
      ...base,
      maxOutputBytes: 4096,
      spillPath,
      argv: fake('lines 3000'),
      onOutput: (n) => seen.push(n),
    })
    const whole = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} of 3000\n`).join('')
    expect(r.spilledTo).toBe(spillPath)
    expect(readFileSync(spillPath, 'utf8')).toBe(whole)
    expect(statSync(spillPath).mode & 0o777).toBe(0o600)
    expect(r.stdout).toBe(whole.slice(0, r.stdout.length))
    expect(r.outputBytes).toBe(whole.length)
    expect(seen.at(-1)).toBe(whole.length)
  })

  it('stops the spill file at its bound and counts what was kept nowhere', async () => {
    const spillPath = join(dir, 'bounded-spill.txt')
    const r = await runTurn({
      ...base,
      maxOutputBytes: 4096,
      spillPath,
      spillMaxBytes: 10_000,
      argv: fake('lines 3000'),
    })
    const whole = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} of 3000\n`).join('')
    expect(readFileSync(spillPath, 'utf8')).toBe(whole.slice(0, 10_000))
    expect(r.unkeptBytes).toBe(whole.length - 10_000)
    expect(r.outcome).toBe('ok')
  })

  it('writes no spill file for output within the bound', async () => {
    const spillPath = join(dir, 'no-spill.txt')
    const r = await runTurn({ ...base, spillPath, argv: fake('lines 10') })
    expect(r.spilledTo).toBeUndefined()
    expect(existsSync(spillPath)).toBe(false)
  })

  it('cancel kills the turn and the grandchild it spawned', async () => {
    const pidFile = join(dir, 'grandchild.pid')
    const ac = new AbortController()
    const running = runTurn({
      ...base,
      env: { ...base.env, FAKE_AGENT_PIDFILE: pidFile },
      argv: fake('grandchild'),
      signal: ac.signal,
    })
    let grandchild = 0
    await waitFor(() => {
      try {
        grandchild = Number(readFileSync(pidFile, 'utf8'))
        return grandchild > 0
      } catch {
        return false
      }
    })
    expect(isAlive(grandchild)).toBe(true)
    ac.abort()
    const r = await running
    expect(r.outcome).toBe('cancelled')
    await waitFor(() => !isAlive(grandchild))
  })

  it('escalates to SIGKILL when the agent ignores SIGTERM', async () => {
    const ac = new AbortController()
    const chunks: number[] = []
    const running = runTurn({
      ...base,
      argv: fake('hang-hard'),
      signal: ac.signal,
      livenessMs: 20,
      onLiveness: (l) => chunks.push(l.outputBytes),
    })
    await waitFor(() => chunks.some((b) => b > 0))
    ac.abort()
    const r = await running
    expect(r).toMatchObject({ outcome: 'cancelled', signal: 'SIGKILL' })
  })

  it('kills a running turn tree when the owning process exits, so no turn is orphaned', async () => {
    const pidFile = join(dir, 'orphan.pid')
    const script = join(dir, 'owner.mts')
    const { writeFileSync } = await import('node:fs')
    const groupModule = new URL('../src/agent/process-group.ts', import.meta.url).href
    writeFileSync(
      script,
      `import { spawnGroup } from ${JSON.stringify(groupModule)}
spawnGroup([process.execPath, ${JSON.stringify(FAKE)}, '-p', 'grandchild'], { env: { ...process.env, FAKE_AGENT_PIDFILE: ${JSON.stringify(pidFile)} } })
const { existsSync } = await import('node:fs')
const wait = () => new Promise((r) => setTimeout(r, 20))
while (!existsSync(${JSON.stringify(pidFile)})) await wait()
process.exit(0)
`,
    )
    const { execFileSync } = await import('node:child_process')
    execFileSync(process.execPath, ['--conditions=@e2e-col/source', '--import', 'tsx', script], {
      stdio: 'ignore',
      timeout: 20_000,
    })
    const grandchild = Number(readFileSync(pidFile, 'utf8'))
    expect(grandchild).toBeGreaterThan(0)
    await waitFor(() => !isAlive(grandchild))
  })

  it('has no wall-clock cap unless a turn timeout is given', async () => {
    const r = await runTurn({ ...base, argv: fake('sleep 300') })
    expect(r.outcome).toBe('ok')
    const t = await runTurn({ ...base, argv: fake('hang'), timeoutMs: 200 })
    expect(t.outcome).toBe('timeout')
  })
})
