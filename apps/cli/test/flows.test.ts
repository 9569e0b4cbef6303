/**
 * The link and register flows against the toy over real HTTP, with a scripted terminal standing in
 * for the person: fresh QR codes after a timeout, a refusing phone, and the prompts for a captcha,
 * the code and a registration-lock PIN.
 */
import { createProvisioningClient } from '@e2e-col/signal-cli'
import { createToySignal, type ToySignal } from '@e2e-col/toy-signal'
import { afterEach, describe, expect, it } from 'vitest'
import { CliError } from '../src/errors.ts'
import { linkDevice } from '../src/link-flow.ts'
import { registerNumber } from '../src/register-flow.ts'
import type { Terminal } from '../src/terminal.ts'

const NUMBER = '+15555550141'
const toys: ToySignal[] = []
afterEach(async () => {
  await Promise.all(toys.splice(0).map((t) => t.close()))
})

async function toy(linkTimeoutMs = 60_000): Promise<ToySignal> {
  const t = await createToySignal({ faults: true, linkTimeoutMs })
  toys.push(t)
  return t
}

/** A terminal whose person answers from a script, and which records what was said and asked. */
function scripted(
  answers: ((question: string) => Promise<string> | string)[],
  interactive = true,
): Terminal & { lines: string[]; questions: string[] } {
  const lines: string[] = []
  const questions: string[] = []
  return {
    interactive,
    lines,
    questions,
    say: (line) => {
      lines.push(line)
    },
    countdown: () => () => {},
    async ask(question) {
      questions.push(question)
      const next = answers.shift()
      if (next === undefined) throw new Error(`unexpected question: ${question}`)
      return next(question)
    },
  }
}

async function admin(t: ToySignal, path: string, body?: unknown): Promise<any> {
  const res = await fetch(
    `${t.url}/toy/v1/${path}`,
    body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) },
  )
  const text = await res.text()
  return text === '' ? undefined : JSON.parse(text)
}

async function failure(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof CliError)) throw new Error(`expected a CliError, got ${String(error)}`)
  return error
}

describe('linkDevice', () => {
  it('offers a fresh code after one expires, and gives up after the last attempt (exit 7)', async () => {
    const t = await toy(200)
    const term = scripted([])
    const uris: string[] = []
    const error = await failure(
      linkDevice(
        createProvisioningClient({ url: t.url }),
        term,
        { deviceName: 'x', attempts: 2, page: false, onUri: (u) => uris.push(u) },
        '/d',
      ),
    )
    expect(error.code).toBe('CLI_LINK_TIMEOUT')
    expect(error.exitCode).toBe(7)
    expect(uris).toHaveLength(2)
    expect(new Set(uris).size).toBe(2)
    expect(term.lines).toContain('The code expired without a scan; here is a new one (2 of 2).')
  })

  it('reports a phone that scanned and then refused', async () => {
    const t = await toy()
    const term = scripted([])
    const error = await failure(
      linkDevice(
        createProvisioningClient({ url: t.url }),
        term,
        {
          deviceName: 'x',
          attempts: 3,
          page: false,
          onUri: (uri) => void admin(t, 'provisioning/refuse', { deviceLinkUri: uri }),
        },
        '/d',
      ),
    )
    expect(error.code).toBe('CLI_LINK_REFUSED')
  })

  it('shows the code on the local page while it waits, then says it is linked', async () => {
    const t = await toy()
    const term = scripted([])
    let pageState: any
    const number = await linkDevice(
      createProvisioningClient({ url: t.url }),
      term,
      {
        deviceName: 'x',
        attempts: 1,
        page: true,
        onUri: (uri) =>
          void (async () => {
            const pageUrl = /The same code, larger: (\S+)/.exec(term.lines.join('\n'))?.[1] as string
            pageState = await (await fetch(`${pageUrl}state`)).json()
            await admin(t, 'provisioning/scan', { deviceLinkUri: uri, number: NUMBER })
          })(),
      },
      '/d',
    )
    expect(number).toBe(NUMBER)
    expect(pageState).toMatchObject({ status: 'waiting', uri: expect.stringMatching(/^sgnl:\/\/linkdevice\?/) })
  })
})

describe('registerNumber with a person at the terminal', () => {
  it('asks for the captcha (saying where to get it), then the code, then the registration-lock PIN', async () => {
    const t = await toy()
    await admin(t, 'registration/captcha', { number: NUMBER })
    await admin(t, 'registration/lock', { number: NUMBER, pin: '2468' })
    const code = async (): Promise<string> =>
      ((await admin(t, 'registration/codes')) as { code: string }[])[0]?.code ?? ''
    const term = scripted([() => 'signalcaptcha://signal-hcaptcha.t.registration.x', code, () => '2468'])
    expect(
      await registerNumber(createProvisioningClient({ url: t.url }), term, { number: NUMBER, voice: false }),
    ).toEqual({ kind: 'verified' })
    expect(term.questions).toEqual(['  3. paste it here:', 'Code (6 digits):', 'PIN:'])
    expect(term.lines.join('\n')).toContain('https://signalcaptchas.org/registration/generate.html')
    expect(
      (
        await (
          await fetch(`${t.url}/api/v1/rpc`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"jsonrpc":"2.0","method":"listAccounts","id":1}',
          })
        ).json()
      ).result,
    ).toEqual([{ number: NUMBER }])
  })

  it('without a terminal, a PIN-locked number ends with what to pass (exit 8)', async () => {
    const t = await toy()
    await admin(t, 'registration/lock', { number: NUMBER, pin: '2468' })
    const rpc = createProvisioningClient({ url: t.url })
    expect(await registerNumber(rpc, scripted([], false), { number: NUMBER, voice: false })).toEqual({
      kind: 'code-sent',
    })
    const code = ((await admin(t, 'registration/codes')) as { code: string }[])[0]?.code as string
    const error = await failure(registerNumber(rpc, scripted([], false), { number: NUMBER, voice: false, code }))
    expect(error.code).toBe('CLI_PIN_LOCKED')
    expect(error.hint).toContain('--pin PIN')
    expect(await registerNumber(rpc, scripted([], false), { number: NUMBER, voice: false, code, pin: '2468' })).toEqual(
      { kind: 'verified' },
    )
  })

  it('refuses a code that is not 6 digits before asking Signal', async () => {
    const t = await toy()
    const error = await failure(
      registerNumber(createProvisioningClient({ url: t.url }), scripted([], false), {
        number: NUMBER,
        voice: false,
        code: '12345',
      }),
    )
    expect(error.code).toBe('CLI_WRONG_CODE')
    expect(error.message).toBe('the code must be 6 digits')
  })
})
