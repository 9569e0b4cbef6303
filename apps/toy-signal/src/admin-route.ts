/**
 * The `/toy/v1/` admin route (only with faults enabled): the fault switches and the send log over
 * HTTP, for tests that run the toy as a separate process.
 *
 * POST /toy/v1/faults/fail-next-rpc         {"n":1}
 * POST /toy/v1/faults/drop-next-sends       {"n":1}
 * POST /toy/v1/faults/delay                 {"ms":200}
 * POST /toy/v1/faults/cut-streams           {} | {"afterEvents":2}
 * POST /toy/v1/faults/duplicate-next-events {"n":1}
 * POST /toy/v1/faults/rate-limit-next-sends {"n":1,"retryAfterSeconds":60,"mode":"per-recipient"|"all-failed"}
 * POST /toy/v1/faults/identity-fail-next-sends {"n":1,"mode"?:"per-recipient"|"all-failed"}
 * POST /toy/v1/faults/fail-next-sends-with  {"n":1,"code":-32603,"message":"Failed to send message: [429] …"}
 * POST /toy/v1/faults/fail-events           {"n":1,"status"?:500,"contentType"?:"text/html"}
 * POST /toy/v1/faults/spoil-next-attachments {"n":1,"mode":"corrupt"|"lose"}
 * POST /toy/v1/faults/admit-non-member-sends {"n":1}
 * POST /toy/v1/faults/network-loss          {"lost":true}
 * POST /toy/v1/faults/reset                 {}
 * GET  /toy/v1/sends                        → [{account, groupId?, recipients?, message, timestamp}]
 * Answers 204 (switch set), 200 (sends), 400 `{"error":…}` (bad body), 404, 405.
 * @see docs/daemon-contract.md §5
 */
import { z } from 'zod'
import { MAX_FAULT_MESSAGE_CHARS, type FaultSwitches } from './faults.ts'
import type { SendRecord } from './state.ts'

const Count = z.object({ n: z.number().int().min(0) })
const ROUTES: Record<string, (body: unknown, faults: FaultSwitches) => void> = {
  'fail-next-rpc': (body, f) => f.failNextRpc(Count.parse(body).n),
  'drop-next-sends': (body, f) => f.dropNextSends(Count.parse(body).n),
  delay: (body, f) => f.setDelay(z.object({ ms: z.number().int().min(0) }).parse(body).ms),
  'cut-streams': (body, f) => {
    const { afterEvents } = z.object({ afterEvents: z.number().int().min(1).optional() }).parse(body)
    f.cutStreams(afterEvents === undefined ? {} : { afterEvents })
  },
  'duplicate-next-events': (body, f) => f.duplicateNextEvents(Count.parse(body).n),
  'rate-limit-next-sends': (body, f) => {
    const o = z
      .object({
        n: z.number().int().min(0),
        retryAfterSeconds: z.number().int().min(0),
        mode: z.enum(['per-recipient', 'all-failed']),
      })
      .parse(body)
    f.rateLimitNextSends(o.n, { retryAfterSeconds: o.retryAfterSeconds, mode: o.mode })
  },
  'identity-fail-next-sends': (body, f) => {
    const o = z
      .object({
        n: z.number().int().min(0),
        mode: z.enum(['per-recipient', 'all-failed']).optional(),
        from: z
          .string()
          .regex(/^\+[1-9]\d{6,14}$/)
          .optional(),
      })
      .parse(body)
    f.identityFailNextSends(o.n, {
      ...(o.mode === undefined ? {} : { mode: o.mode }),
      ...(o.from === undefined ? {} : { from: o.from }),
    })
  },
  'fail-next-sends-with': (body, f) => {
    const o = z
      .object({
        n: z.number().int().min(0),
        code: z.number().int(),
        message: z.string().max(MAX_FAULT_MESSAGE_CHARS),
        from: z
          .string()
          .regex(/^\+[1-9]\d{6,14}$/)
          .optional(),
      })
      .parse(body)
    f.failNextSendsWith(o.n, { code: o.code, message: o.message }, o.from === undefined ? {} : { from: o.from })
  },
  'fail-events': (body, f) => {
    const o = z
      .object({
        n: z.number().int().min(0),
        status: z.number().int().min(200).max(599).optional(),
        contentType: z.string().min(1).max(200).optional(),
      })
      .parse(body)
    f.failEvents(o.n, {
      ...(o.status === undefined ? {} : { status: o.status }),
      ...(o.contentType === undefined ? {} : { contentType: o.contentType }),
    })
  },
  'spoil-next-attachments': (body, f) => {
    const o = z.object({ n: z.number().int().min(0), mode: z.enum(['corrupt', 'lose']) }).parse(body)
    f.spoilNextAttachments(o.n, { mode: o.mode })
  },
  'admit-non-member-sends': (body, f) => f.admitNonMemberSends(Count.parse(body).n),
  'network-loss': (body, f) => f.setNetworkLoss(z.object({ lost: z.boolean() }).parse(body).lost),
  reset: (_body, f) => f.reset(),
}

/** An admin answer: status and optional JSON body. */
export interface AdminAnswer {
  status: number
  body?: unknown
}

/** Handles one admin request; `text` is the already-read body. */
export function handleAdmin(
  method: string,
  path: string,
  text: string,
  faults: FaultSwitches,
  sends: () => readonly SendRecord[],
): AdminAnswer {
  if (path === '/toy/v1/sends') {
    return method === 'GET' ? { status: 200, body: sends() } : { status: 405 }
  }
  const name = path.startsWith('/toy/v1/faults/') ? path.slice('/toy/v1/faults/'.length) : undefined
  const route = name === undefined ? undefined : ROUTES[name]
  if (route === undefined) return { status: 404 }
  if (method !== 'POST') return { status: 405 }
  try {
    route(text.trim() === '' ? {} : JSON.parse(text), faults)
    return { status: 204 }
  } catch (error) {
    const message =
      error instanceof z.ZodError ? z.prettifyError(error) : error instanceof Error ? error.message : String(error)
    return { status: 400, body: { error: message } }
  }
}
