import { describe, expect, it } from 'vitest'
import { parseCommand } from './args.ts'
import { CliError } from './errors.ts'

function usageError(argv: string[]): CliError {
  try {
    parseCommand(argv)
  } catch (error) {
    if (error instanceof CliError) return error
    throw error
  }
  throw new Error(`accepted ${argv.join(' ')}`)
}

describe('parseCommand', () => {
  it('reads setup --link with its defaults', () => {
    const cmd = parseCommand(['setup', '--link'])
    expect(cmd).toMatchObject({ kind: 'setup', mode: 'link', linkAttempts: 3, page: true, force: false, voice: false })
    if (cmd.kind === 'setup') expect(cmd.deviceName).toMatch(/^e2e-col on \S/)
  })

  it('reads setup --register with code, pin and a daemon URL (normalised to its origin)', () => {
    expect(
      parseCommand([
        'setup',
        '--register',
        '+15551234567',
        '--code',
        '123-456',
        '--pin',
        '9999',
        '--daemon-url',
        'http://127.0.0.1:8080/',
      ]),
    ).toMatchObject({
      kind: 'setup',
      mode: 'register',
      number: '+15551234567',
      code: '123-456',
      pin: '9999',
      daemonUrl: 'http://127.0.0.1:8080',
    })
  })

  it('refuses a number that is not E.164, both paths at once, and register flags on --link (exit 2)', () => {
    for (const argv of [
      ['setup', '--register', '5551234567'],
      ['setup', '--register', '+1 555 123'],
      ['setup', '--link', '--register', '+15551234567'],
      ['setup', '--link', '--code', '123456'],
      ['setup', '--link-attempts', '0'],
      ['setup', '--daemon-url', 'ftp://x'],
      ['setup', '--bogus'],
      ['launch'],
    ]) {
      const error = usageError(argv)
      expect(error.code).toBe('CLI_USAGE')
      expect(error.exitCode).toBe(2)
    }
  })

  it('reads up with a page port of 0 and a listen override, and passes chat arguments through untouched', () => {
    expect(parseCommand(['up', '--page-port', '0', '--listen', '127.0.0.1:0'])).toEqual({
      kind: 'up',
      pagePort: 0,
      listen: '127.0.0.1:0',
      open: true,
    })
    expect(parseCommand(['up'])).toEqual({ kind: 'up', pagePort: 5173, open: true })
    expect(parseCommand(['up', '--no-open'])).toEqual({ kind: 'up', pagePort: 5173, open: false })
    expect(usageError(['up', '--page-port', '70000']).exitCode).toBe(2)
    expect(parseCommand(['chat', 'topic', '--operator', '+15550000002'])).toEqual({
      kind: 'chat',
      args: ['topic', '--operator', '+15550000002'],
    })
  })

  it('answers help for no command, --help and per-command --help', () => {
    expect(parseCommand([])).toEqual({ kind: 'help' })
    expect(parseCommand(['--help'])).toEqual({ kind: 'help' })
    expect(parseCommand(['setup', '--help'])).toEqual({ kind: 'help', topic: 'setup' })
    expect(parseCommand(['up', '-h'])).toEqual({ kind: 'help', topic: 'up' })
  })

  it('hands docs and inspect to the sidecar whole, and `sidecar` with the rest of its arguments', () => {
    expect(parseCommand(['docs', '--help'])).toEqual({ kind: 'sidecar', args: ['docs', '--help'] })
    expect(parseCommand(['agent', 'token', '--doc', 'Trip plan', '--name', 'Claude'])).toEqual({
      kind: 'sidecar',
      args: ['docs', 'agent-token', 'Trip plan', '--name', 'Claude'],
    })
    expect(parseCommand(['docs', 'new', 'Trip plan', '--with', '+15555550102'])).toEqual({
      kind: 'sidecar',
      args: ['docs', 'new', 'Trip plan', '--with', '+15555550102'],
    })
    expect(parseCommand(['inspect', '--doc', 'x'])).toEqual({ kind: 'sidecar', args: ['inspect', '--doc', 'x'] })
    expect(parseCommand(['sidecar', '--config', 'c.json'])).toEqual({ kind: 'sidecar', args: ['--config', 'c.json'] })
  })
})
