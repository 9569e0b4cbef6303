/**
 * What a daemon failure during setup means for the person, and what they should do: signal-cli's
 * messages (0.13.x `StartLinkCommand`, `FinishLinkCommand`, `RegisterCommand`, `VerifyCommand`,
 * `CommandUtil`) mapped to one typed {@link CliError} each. Pure.
 */
import { asSignalCliFailure, type SignalRpcError } from '@e2e-col/signal-cli'
import { asCliError, CliError } from './errors.ts'
import { EXIT } from './exit-codes.ts'

/** The step that failed. */
export type SetupStep = 'startLink' | 'finishLink' | 'register' | 'verify' | 'daemon'

// What signal-cli says when it cannot reach Signal's servers: DNS, refused or reset connections,
// a closed provisioning socket, timeouts.
const NETWORK =
  /UnknownHostException|PushNetworkException|ConnectException|NoRouteToHost|SocketTimeout|Connection closed|connection reset|timed out|Network is unreachable|SSLHandshake/i

export const UNREACHABLE_HINT =
  "check this machine's network connection (signal-cli needs https://chat.signal.org on port 443; a proxy or firewall may block it), then run this again"

function unreachable(detail: string): CliError {
  return new CliError(
    'CLI_SIGNAL_UNREACHABLE',
    EXIT.signalUnreachable,
    `Signal is unreachable: signal-cli could not connect to Signal's servers (${detail})`,
    UNREACHABLE_HINT,
  )
}

type AdviceContext = { number?: string; signalCliDir?: string }

/** Turns any failure of one step into a CliError (CliErrors pass through). */
export function adviceFor(step: SetupStep, error: unknown, context: AdviceContext = {}): CliError {
  const known = asCliError(error)
  if (known !== undefined) return known
  const failure = asSignalCliFailure(error)
  if (failure?.code === 'SIDECAR_SIGNAL_RPC_ERROR') return rpcAdvice(step, failure, context)
  if (failure !== undefined) {
    return new CliError(
      'CLI_DAEMON_UNREACHABLE',
      EXIT.daemon,
      failure.message,
      'make sure the signal-cli daemon is running (or drop --daemon-url to let e2e-col start one), then run this again',
      { cause: error },
    )
  }
  return new CliError(
    'CLI_DAEMON_FAILED',
    EXIT.unexpected,
    `${step} failed: ${error instanceof Error ? error.message : String(error)}`,
    'run this again; if it keeps failing, report it with this output',
    { cause: error },
  )
}

/** What the daemon's JSON-RPC error means at this step, from signal-cli's own words. */
function rpcAdvice(step: SetupStep, error: SignalRpcError, context: AdviceContext): CliError {
  const { rpcCode: code, rpcMessage: message } = error
  const oneLine = message.split('\n')[0] ?? message
  // Linking and registering exist only in multi-account mode (a daemon started without -a).
  if (code === -32601 && (step === 'startLink' || step === 'finishLink' || step === 'register' || step === 'verify')) {
    return new CliError(
      'CLI_DAEMON_FAILED',
      EXIT.daemon,
      `the daemon at --daemon-url has no ${step} (it runs in single-account mode, signal-cli -a NUMBER daemon)`,
      'start it without -a (`signal-cli daemon --http 127.0.0.1:PORT --receive-mode on-connection`), or drop --daemon-url to let e2e-col start one',
    )
  }
  switch (step) {
    case 'startLink':
      if (code === -3 || NETWORK.test(message)) return unreachable(oneLine)
      break
    case 'finishLink':
      if (/Link request timed out/.test(message)) {
        return new CliError(
          'CLI_LINK_TIMEOUT',
          EXIT.link,
          'the QR code was not scanned in time',
          'run this again and scan the new code within a minute (Signal → Settings → Linked devices → +)',
        )
      }
      if (/already exists/.test(message)) {
        return new CliError(
          'CLI_ALREADY_EXISTS',
          EXIT.link,
          `this phone's number is already linked in ${context.signalCliDir ?? "signal-cli's folder"}`,
          'run `e2e-col up` to use it, or `e2e-col setup --force` with a new --state-dir to link again',
        )
      }
      if (NETWORK.test(message)) return unreachable(oneLine)
      if (code === -3)
        return new CliError(
          'CLI_LINK_REFUSED',
          EXIT.link,
          `the phone scanned the code but linking did not complete (${oneLine})`,
          'on the phone, check Settings → Linked devices (remove a half-linked "e2e-col" entry), update Signal, then run this again',
        )
      break
    case 'register':
      if (/Captcha required/.test(message)) {
        return new CliError(
          'CLI_CAPTCHA_REQUIRED',
          EXIT.registration,
          'Signal asks for a captcha before it sends the code',
          'open https://signalcaptchas.org/registration/generate.html in a browser, solve it, right-click "Open Signal" and copy the link (it starts with signalcaptcha://), then run this again with --captcha \'signalcaptcha://…\' (quote it)',
        )
      }
      if (/Invalid captcha/.test(message) || code === -6) {
        return new CliError(
          'CLI_CAPTCHA_REJECTED',
          EXIT.registration,
          'Signal rejected the captcha token',
          'solve a new captcha at https://signalcaptchas.org/registration/generate.html (tokens expire within minutes) and copy the whole signalcaptcha:// link',
        )
      }
      if (code === -5 || /Rate limit/i.test(message))
        return new CliError(
          'CLI_RATE_LIMITED',
          EXIT.registration,
          `Signal is rate limiting registration for this number (${oneLine})`,
          'wait for the time Signal names (often hours), then run this again',
        )
      if (NETWORK.test(message)) return unreachable(oneLine)
      if (/voice verification/.test(message))
        return new CliError(
          'CLI_REGISTRATION_FAILED',
          EXIT.registration,
          oneLine,
          'run it once without --voice (an SMS first), wait a minute, then ask for a call with --voice',
        )
      return new CliError(
        'CLI_REGISTRATION_FAILED',
        EXIT.registration,
        `Signal refused to register ${context.number ?? 'the number'} (${oneLine})`,
        'check the number (E.164: + then country code and number) and run this again',
      )
    case 'verify':
      if (/locked with a pin/.test(message)) {
        return new CliError(
          'CLI_PIN_LOCKED',
          EXIT.registration,
          'this number has a registration lock: it is (or was) registered elsewhere with a Signal PIN',
          'run this again with --code CODE --pin PIN (the PIN set in the Signal app that used this number)',
        )
      }
      if (/Invalid pin/.test(message))
        return new CliError(
          'CLI_PIN_LOCKED',
          EXIT.registration,
          `wrong registration-lock PIN (${oneLine.replace(/^Verification failed! /, '')})`,
          'run this again with the right --pin; too many wrong tries lock the number for days',
        )
      if (/sessionId|no session/i.test(message))
        return new CliError(
          'CLI_REGISTRATION_FAILED',
          EXIT.registration,
          `no verification code was requested for ${context.number ?? 'this number'} on this daemon`,
          'run `e2e-col setup --register NUMBER` without --code first; it sends the code',
        )
      if (/already registered/.test(message))
        return new CliError(
          'CLI_REGISTRATION_FAILED',
          EXIT.registration,
          `${context.number ?? 'the number'} is already registered here`,
          'run `e2e-col up`',
        )
      if (NETWORK.test(message)) return unreachable(oneLine)
      if (code === -3)
        return new CliError(
          'CLI_WRONG_CODE',
          EXIT.registration,
          `Signal did not accept the code (${oneLine})`,
          'check the 6 digits from the SMS or call and run this again with --code; codes expire after a while, so request a new one without --code if needed',
        )
      break
    default:
      if (NETWORK.test(message)) return unreachable(oneLine)
  }
  return new CliError(
    'CLI_DAEMON_FAILED',
    EXIT.unexpected,
    `${step} failed: signal-cli error ${code}: ${oneLine}`,
    'run this again; if it keeps failing, report it with this output',
  )
}
