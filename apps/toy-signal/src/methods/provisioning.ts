/**
 * Account-free methods: `startLink`/`finishLink` (this daemon becomes a linked device) and
 * `register`/`verify` (a number of its own), with signal-cli 0.13.x's messages and codes
 * (`commands/StartLinkCommand`, `FinishLinkCommand`, `RegisterCommand`, `VerifyCommand`,
 * `util/CommandUtil`). A test plays the phone through the admin route (`/toy/v1/provisioning/…`).
 * With the `offline` option, startLink and register fail as 0.13.19 does without network (observed).
 * @see docs/contract.md §5, reference `signal-cli-wire.md` §5
 */
import { RPC_CODES, RpcFailure, internalError, userError } from '../rpc-failure.ts'
import type { MethodContext, MethodDefinition } from './context.ts'

const E164 = /^\+[1-9]\d{6,14}$/
/** Characters java.net.URI refuses anywhere in a URI (RFC 2396 "unwise" and controls). */
const NOT_URI = /[\s"<>\\^`{|}]|%(?![0-9a-fA-F]{2})/

const CAPTCHA_REQUIRED = `Captcha required for verification, use --captcha CAPTCHA
To get the token, go to https://signalcaptchas.org/registration/generate.html
After solving the captcha, right-click on the "Open Signal" link and copy the link.`

function stringParam(ctx: MethodContext, name: string): string | undefined {
  const value = ctx.params[name]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string')
    throw internalError(
      `class java.lang.${typeof value === 'number' ? 'Integer' : 'Boolean'} cannot be cast to class java.lang.String`,
      'ClassCastException',
    )
  return value
}

function provisioning(ctx: MethodContext): NonNullable<MethodContext['provisioning']> {
  if (ctx.provisioning === undefined) throw internalError('provisioning is not available', 'IllegalStateException')
  return ctx.provisioning
}

/** `startLink`: `{deviceLinkUri}`, a `sgnl://linkdevice?uuid=…&pub_key=…` URI; multi-account mode only. */
export const startLinkMethod: MethodDefinition = {
  routing: 'multi',
  run(ctx) {
    // The real pub_key is a 33-byte Curve25519 public key (type byte 0x05), base64, URL-encoded.
    if (provisioning(ctx).offline) throw new RpcFailure(RPC_CODES.ioError, 'Link request error: Connection closed!')
    const key = Buffer.concat([Buffer.from([0x05]), Buffer.from(ctx.state.randomId(32), 'base64url').subarray(0, 32)])
    const uri = `sgnl://linkdevice?uuid=${ctx.state.randomId(16)}&pub_key=${encodeURIComponent(key.toString('base64'))}`
    provisioning(ctx).newLink(uri)
    return { deviceLinkUri: uri }
  },
}

/** `finishLink {deviceLinkUri, deviceName?}`: waits for the scan; `{number}` of the new account. */
export const finishLinkMethod: MethodDefinition = {
  routing: 'multi',
  async run(ctx) {
    const uri = stringParam(ctx, 'deviceLinkUri')
    if (uri === undefined) throw userError('Missing deviceLinkUri.')
    if (NOT_URI.test(uri)) throw userError('Invalid device link uri.')
    const p = provisioning(ctx)
    if (!p.hasLink(uri)) throw userError('Unknown device link uri.')
    const outcome = await p.awaitLink(uri)
    if (outcome.kind === 'timeout') throw userError('Link request timed out, please try again.')
    if (outcome.kind === 'refused')
      throw new RpcFailure(
        RPC_CODES.ioError,
        'Link request error: [403] Authorization failed! (AuthorizationFailedException)',
      )
    if (ctx.state.isAccount(outcome.number)) {
      throw userError(
        `The user ${outcome.number} already exists\nDelete "${ctx.state.accountFile(outcome.number)}" before trying again.`,
      )
    }
    ctx.state.addAccount(outcome.number)
    return { number: outcome.number }
  },
}

/** `register {account, voice?, captcha?, reregister?}`: sends a code (the admin route shows it); `{}`. */
export const registerMethod: MethodDefinition = {
  routing: 'registration',
  run(ctx) {
    const number = ctx.account
    const p = provisioning(ctx)
    const captcha = stringParam(ctx, 'captcha')
    const voice = ctx.params['voice'] === true
    if (p.offline)
      throw new RpcFailure(
        RPC_CODES.ioError,
        'Failed to register: java.net.UnknownHostException: chat.signal.org (PushNetworkException)',
      )
    if (!E164.test(number))
      throw userError(`Failed to register: Phone number is not normalized (${number}). Expected normalized: ${number}`)
    if (ctx.state.isAccount(number) && ctx.params['reregister'] !== true) return {}
    if (p.captchaForAll || p.captchaRequired.has(number)) {
      if (captcha === undefined) throw userError(CAPTCHA_REQUIRED)
      if (!captcha.startsWith('signalcaptcha://')) throw userError('Invalid captcha given.')
      p.captchaRequired.delete(number)
    }
    if (voice && p.registration(number) === undefined) {
      throw userError(
        'Failed to register: Invalid verification method: Before requesting voice verification you need to request SMS verification and wait a minute.',
      )
    }
    const code = String(Buffer.from(ctx.state.randomId(8), 'base64url').readUInt32BE(0) % 1_000_000).padStart(6, '0')
    p.startRegistration({ number, code, voice })
    return {}
  },
}

/** `verify {account, verificationCode, pin?}`: the code `register` sent; `{}` and a new account. */
export const verifyMethod: MethodDefinition = {
  routing: 'registration',
  run(ctx) {
    const number = ctx.account
    const p = provisioning(ctx)
    if (ctx.state.isAccount(number))
      throw new RpcFailure(RPC_CODES.ioError, 'Verify error: Account is already registered')
    const pending = p.registration(number)
    // Without a registration session the real daemon trips over a null session id.
    if (pending === undefined) {
      throw internalError(
        'Parameter specified as non-null is null: method org.whispersystems.signalservice.api.registration.RegistrationApi.verifyAccount, parameter sessionId',
        'NullPointerException',
      )
    }
    const code = (stringParam(ctx, 'verificationCode') ?? '').replace(/-/g, '')
    if (code !== pending.code) throw new RpcFailure(RPC_CODES.ioError, 'Verify error: [403] Authorization failed!')
    const lock = p.pins.get(number)
    if (lock !== undefined) {
      const pin = stringParam(ctx, 'pin')
      if (pin === undefined) {
        throw userError(
          "Verification failed! This number is locked with a pin. Hours remaining until reset: 167\nUse '--pin PIN_CODE' to specify the registration lock PIN",
        )
      }
      if (pin !== lock) {
        const left = Math.max(0, (p.pinTries.get(number) ?? 10) - 1)
        p.pinTries.set(number, left)
        throw userError(`Verification failed! Invalid pin, tries remaining: ${left}`)
      }
    }
    p.endRegistration(number)
    ctx.state.addAccount(number)
    return {}
  },
}
