/**
 * The admin route's provisioning part (only with faults enabled): a test plays the phone.
 *
 * GET  /toy/v1/provisioning/links        → [{deviceLinkUri, createdAt}] links waiting for a scan
 * POST /toy/v1/provisioning/scan         {"deviceLinkUri":"sgnl://…","number":"+E164"} the phone scans and agrees
 * POST /toy/v1/provisioning/refuse       {"deviceLinkUri":"sgnl://…"} the phone scans, then the link fails
 * GET  /toy/v1/registration/codes        → [{number, code, voice}] the codes an SMS or call would carry
 * POST /toy/v1/registration/captcha      {"number":"+E164"} | {"all":true|false} next register needs a captcha
 * POST /toy/v1/registration/lock         {"number":"+E164","pin":"1234"} the number has a registration-lock PIN
 * Answers 204, 200 (lists), 400 `{"error":…}` (bad body), 404 (unknown link or route), 405.
 * @see docs/contract.md §5
 */
import { z } from 'zod'
import type { AdminAnswer } from './admin-route.ts'
import type { ProvisioningState } from './provisioning-state.ts'

const Number164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number')
const Uri = z.string().min(1).max(2000)

type Route = (body: unknown, p: ProvisioningState) => AdminAnswer

const POSTS: Record<string, Route> = {
  '/toy/v1/provisioning/scan': (body, p) => {
    const o = z.object({ deviceLinkUri: Uri, number: Number164 }).parse(body)
    return p.resolveLink(o.deviceLinkUri, { kind: 'scanned', number: o.number })
      ? { status: 204 }
      : { status: 404, body: { error: 'no such link is waiting' } }
  },
  '/toy/v1/provisioning/refuse': (body, p) => {
    const o = z.object({ deviceLinkUri: Uri }).parse(body)
    return p.resolveLink(o.deviceLinkUri, { kind: 'refused' })
      ? { status: 204 }
      : { status: 404, body: { error: 'no such link is waiting' } }
  },
  '/toy/v1/registration/captcha': (body, p) => {
    const o = z.union([z.object({ number: Number164 }), z.object({ all: z.boolean() })]).parse(body)
    if ('number' in o) p.captchaRequired.add(o.number)
    else p.captchaForAll = o.all
    return { status: 204 }
  },
  '/toy/v1/registration/lock': (body, p) => {
    const o = z.object({ number: Number164, pin: z.string().min(4).max(64) }).parse(body)
    p.pins.set(o.number, o.pin)
    return { status: 204 }
  },
}

const GETS: Record<string, (p: ProvisioningState) => unknown> = {
  '/toy/v1/provisioning/links': (p) => p.links(),
  '/toy/v1/registration/codes': (p) => p.registrations(),
}

/** Whether the path belongs to this route. */
export function isProvisioningAdminPath(path: string): boolean {
  return path.startsWith('/toy/v1/provisioning/') || path.startsWith('/toy/v1/registration/')
}

/** Handles one provisioning admin request; `text` is the already-read body. */
export function handleProvisioningAdmin(method: string, path: string, text: string, p: ProvisioningState): AdminAnswer {
  const get = GETS[path]
  if (get !== undefined) return method === 'GET' ? { status: 200, body: get(p) } : { status: 405 }
  const post = POSTS[path]
  if (post === undefined) return { status: 404 }
  if (method !== 'POST') return { status: 405 }
  try {
    return post(text.trim() === '' ? {} : JSON.parse(text), p)
  } catch (error) {
    const message =
      error instanceof z.ZodError ? z.prettifyError(error) : error instanceof Error ? error.message : String(error)
    return { status: 400, body: { error: message } }
  }
}
