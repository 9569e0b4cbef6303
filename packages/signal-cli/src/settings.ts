/**
 * The zod pieces of the daemon's settings, shared by every program that talks to signal-cli
 * (the sidecar and `e2e-col chat`), so `SIGNAL_CLI_URL` and `SIGNAL_CLI_ACCOUNT` mean the same
 * everywhere.
 * @see docs/sidecar.md §4.8
 */
import { isIP } from 'node:net'
import { z } from 'zod'

/** An E.164 phone number such as +33612345678. */
export const E164 = /^\+[1-9][0-9]{6,14}$/
export const E164_MESSAGE = 'must be an E.164 number such as +33612345678'

/** True for hosts that only this machine can reach. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host === '::1') return true
  return isIP(host) === 4 && host.startsWith('127.')
}

/** Parses an http(s) origin (no credentials, path, query or fragment) into a URL. */
export function httpOrigin(text: string, ctx: z.RefinementCtx): URL | typeof z.NEVER {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    ctx.addIssue({ code: 'custom', message: `not a URL: ${JSON.stringify(text)}` })
    return z.NEVER
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    ctx.addIssue({ code: 'custom', message: 'must be http: or https:' })
  if (url.username !== '' || url.password !== '')
    ctx.addIssue({ code: 'custom', message: 'must not carry credentials' })
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '')
    ctx.addIssue({ code: 'custom', message: 'must be an origin (no path, query or fragment)' })
  return url
}

/** `SIGNAL_CLI_URL`: the daemon's HTTP origin, `http://127.0.0.1:8080` by default. */
export const signalCliUrl = z.string().default('http://127.0.0.1:8080').transform(httpOrigin)
/** `SIGNAL_CLI_ACCOUNT`: the account to act as; unset for a daemon that serves one account. */
export const signalCliAccount = z.string().regex(E164, E164_MESSAGE).optional()
/** A comma or space separated list of E.164 numbers (e.g. `E2E_COL_CHAT_OPERATORS`). */
export const e164List = z
  .string()
  .default('')
  .transform((text) => text.split(/[\s,;]+/).filter((n) => n !== ''))
  .pipe(z.array(z.string().regex(E164, E164_MESSAGE)))
