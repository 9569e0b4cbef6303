/**
 * `e2e-col setup`: Java and signal-cli found, a daemon started (or `--daemon-url`), the account
 * linked or registered, and only then config.json written. It makes no Signal group: documents are
 * made from the home page once `e2e-col up` runs (a linked device's group would show on the
 * phone before the person asked for one). A failure leaves no config and, when this run made
 * signal-cli's folder and no account came of it, no folder either.
 */
import { existsSync, rmSync } from 'node:fs'
import { createProvisioningClient } from '@e2e-col/signal-cli'
import type { SupervisedDaemon } from '@e2e-col/signal-cli-runtime'
import type { SetupCommand } from './args.ts'
import { CliError } from './errors.ts'
import { EXIT } from './exit-codes.ts'
import { adviceFor } from './failure-advice.ts'
import { linkDevice } from './link-flow.ts'
import { checkExternalDaemon, startManagedDaemon } from './managed-daemon.ts'
import { registerNumber } from './register-flow.ts'
import { sidecarSettings, writeConfigFile } from './sidecar-config.ts'
import { defaultStateDir, privateDir, stateLayout } from './state-dir.ts'
import type { Terminal } from './terminal.ts'

export interface SetupDeps {
  readonly term: Terminal
  readonly env: Record<string, string | undefined>
  /** Called with each device-link URI once it is shown. */
  readonly onLinkUri?: (uri: string) => void
}

/** The command to run after setup, with the state folder when it is not the default. */
export function nextCommand(
  verb: string,
  stateDir: string | undefined,
  env: Record<string, string | undefined>,
): string {
  const custom = stateDir !== undefined && stateLayout(stateDir).root !== stateLayout(defaultStateDir(env)).root
  return `npx e2e-col ${verb}${custom ? ` --state-dir ${JSON.stringify(stateLayout(stateDir).root)}` : ''}`
}

/** Runs setup; resolves with the exit code. @throws CliError */
export async function runSetup(cmd: SetupCommand, deps: SetupDeps): Promise<number> {
  const { term, env } = deps
  const layout = stateLayout(cmd.stateDir ?? defaultStateDir(env))
  if (existsSync(layout.config) && !cmd.force) {
    term.say(`Already set up (${layout.config}). Start it with: ${nextCommand('up', cmd.stateDir, env)}`)
    term.say('(To set up again, add --force.)')
    return EXIT.ok
  }
  let mode = cmd.mode
  let number = cmd.number
  if (mode === 'ask') {
    const answer = (
      await term.ask(
        'Link this computer to the Signal on your phone (l), or register a number of its own (r)? [l/r]',
        '--link or --register +E164',
      )
    ).toLowerCase()
    if (answer.startsWith('l')) mode = 'link'
    else if (answer.startsWith('r')) {
      mode = 'register'
      number = await term.ask('The number, in E.164 form (e.g. +15551234567):', '--register +E164')
      if (!/^\+[1-9]\d{6,14}$/.test(number))
        throw new CliError(
          'CLI_USAGE',
          EXIT.usage,
          'that is not an E.164 number',
          'type + then the country code and the number, no spaces',
        )
    } else
      throw new CliError(
        'CLI_USAGE',
        EXIT.usage,
        'choose l (link) or r (register)',
        'or pass --link / --register +E164',
      )
  }

  privateDir(layout.root)
  const madeSignalDir = cmd.daemonUrl === undefined && !existsSync(layout.signalCliDir)
  // Once signal-cli holds an account or a pending registration, its folder must be kept.
  let keepSignalDir = false
  let daemon: SupervisedDaemon | undefined
  try {
    let url: string
    if (cmd.daemonUrl !== undefined) {
      await checkExternalDaemon(cmd.daemonUrl)
      url = cmd.daemonUrl
    } else {
      daemon = await startManagedDaemon(layout, term, env)
      url = daemon.url
    }
    const rpc = createProvisioningClient({ url })
    let version: string
    try {
      version = await rpc.version()
    } catch (error) {
      throw adviceFor('daemon', error)
    }
    term.say(`signal-cli daemon ${version} answers at ${url}`)

    let account: string
    // A daemon of ours that already holds one account (an earlier setup stopped after linking or
    // registering): use it rather than link or register again, which signal-cli would refuse.
    const held = cmd.daemonUrl === undefined ? await rpc.listAccounts().catch(() => [] as string[]) : []
    if (held.length === 1 && (mode === 'link' || held[0] === number)) {
      account = held[0] as string
      keepSignalDir = true
      term.say(`This computer already holds ${account} in ${layout.signalCliDir}; using it.`)
    } else if (mode === 'link') {
      account = await linkDevice(
        rpc,
        term,
        {
          deviceName: cmd.deviceName,
          attempts: cmd.linkAttempts,
          page: cmd.page,
          ...(deps.onLinkUri === undefined ? {} : { onUri: deps.onLinkUri }),
        },
        layout.signalCliDir,
      )
      keepSignalDir = true
      term.say(`Linked: this computer is now "${cmd.deviceName}" on the phone of ${account}.`)
    } else {
      account = number as string
      const known = await rpc.listAccounts().catch(() => [] as string[])
      if (known.includes(account)) term.say(`${account} is already registered on this daemon.`)
      else {
        const outcome = await registerNumber(rpc, term, {
          number: account,
          voice: cmd.voice,
          ...(cmd.captcha === undefined ? {} : { captcha: cmd.captcha }),
          ...(cmd.code === undefined ? {} : { code: cmd.code }),
          ...(cmd.pin === undefined ? {} : { pin: cmd.pin }),
          verifyCommand: nextCommand(
            `setup --register ${account} --code CODE${cmd.daemonUrl === undefined ? '' : ` --daemon-url ${cmd.daemonUrl}`}`,
            cmd.stateDir,
            env,
          ),
        })
        keepSignalDir = true
        if (outcome.kind === 'code-sent') return EXIT.ok
        term.say(`Registered: ${account} is the sidecar's own Signal number.`)
      }
    }

    writeConfigFile(
      layout.config,
      sidecarSettings({
        daemonUrl: url,
        account,
        setup: mode === 'link' ? 'linked-device' : 'dedicated-number',
        dataDir: layout.sidecarDataDir,
      }),
    )
    term.say(`Wrote ${layout.config}`)
    term.say('Documents are made on the home page that `up` prints; none exists yet.')
    if (mode === 'link')
      term.say('Each document is a Signal group your phone receives too: mute it there once (group → Mute).')
    term.say('')
    term.say(`Next: ${nextCommand('up', cmd.stateDir, env)}`)
    return EXIT.ok
  } catch (error) {
    if (madeSignalDir && !keepSignalDir) rmSync(layout.signalCliDir, { recursive: true, force: true })
    throw error
  } finally {
    await daemon?.stop()
  }
}
