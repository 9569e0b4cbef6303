/**
 * `setup --register +E164`: a number of the sidecar's own. `register` asks Signal for an SMS (or a
 * call with --voice), then `verify` with the code; a registration-locked number needs its PIN.
 * Without a terminal it runs in two steps, as signal-cli does: `--register N` sends the code and
 * stops; `--register N --code CODE [--pin PIN]` verifies.
 */
import type { ProvisioningClient } from '@e2e-col/signal-cli'
import { CliError } from './errors.ts'
import { EXIT } from './exit-codes.ts'
import { adviceFor } from './failure-advice.ts'
import type { Terminal } from './terminal.ts'

export interface RegisterOptions {
  readonly number: string
  readonly captcha?: string
  readonly voice: boolean
  readonly code?: string
  readonly pin?: string
  /** The command that verifies, told when there is no terminal to ask for the code (default without options). */
  readonly verifyCommand?: string
}

/** Registered and verified: the number is an account of the daemon. */
export type RegisterOutcome = { kind: 'verified' } | { kind: 'code-sent' }

const CAPTCHA = /^signalcaptcha:\/\/\S+$/

/** Runs the flow. @throws CliError */
export async function registerNumber(
  rpc: ProvisioningClient,
  term: Terminal,
  options: RegisterOptions,
): Promise<RegisterOutcome> {
  const { number } = options
  let code = options.code
  if (code === undefined) {
    let captcha = options.captcha
    for (;;) {
      try {
        await rpc.register(number, { ...(captcha === undefined ? {} : { captcha }), voice: options.voice })
        break
      } catch (error) {
        const advice = adviceFor('register', error, { number })
        if ((advice.code !== 'CLI_CAPTCHA_REQUIRED' && advice.code !== 'CLI_CAPTCHA_REJECTED') || !term.interactive)
          throw advice
        term.say(
          advice.code === 'CLI_CAPTCHA_REJECTED'
            ? 'Signal rejected that captcha; solve a new one.'
            : 'Signal asks for a captcha first:',
        )
        term.say('  1. open https://signalcaptchas.org/registration/generate.html in a browser and solve it')
        term.say('  2. right-click "Open Signal" and copy the link (it starts with signalcaptcha://)')
        captcha = await term.ask('  3. paste it here:', "--captcha 'signalcaptcha://…'")
        if (!CAPTCHA.test(captcha))
          throw new CliError(
            'CLI_CAPTCHA_REJECTED',
            EXIT.registration,
            'that is not a signalcaptcha:// link',
            'copy the whole link behind "Open Signal" and run this again',
          )
      }
    }
    term.say(`Signal is sending a code to ${number} by ${options.voice ? 'voice call' : 'SMS'}.`)
    if (!term.interactive) {
      term.say(
        `Next: ${options.verifyCommand ?? `npx e2e-col setup --register ${number} --code CODE`} (add --pin PIN if the number has a registration lock)`,
      )
      return { kind: 'code-sent' }
    }
    code = await term.ask('Code (6 digits):', '--code CODE')
  }
  const digits = code.replace(/[\s-]/g, '')
  if (!/^\d{6}$/.test(digits))
    throw new CliError(
      'CLI_WRONG_CODE',
      EXIT.registration,
      'the code must be 6 digits',
      'type the code from the SMS or call (123-456 or 123456)',
    )
  let pin = options.pin
  for (;;) {
    try {
      await rpc.verify(number, digits, pin)
      return { kind: 'verified' }
    } catch (error) {
      const advice = adviceFor('verify', error, { number })
      if (advice.code !== 'CLI_PIN_LOCKED' || pin !== undefined || !term.interactive) throw advice
      term.say('This number has a registration lock (a Signal PIN set where it was registered before).')
      pin = await term.ask('PIN:', '--pin PIN')
    }
  }
}
