/**
 * What the review tests (suggestions, comments) share: the sidecars' API over plain HTTP, a poll
 * for state another process reaches in its own time, and a new document of Alice's shared with Bob
 * in a role, both plain pages on it.
 */
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import type { DemoStack } from '../src/index.ts'
import { waitForAllSent } from './editor-waits.ts'

export type Who = 'alice' | 'bob'

/** `GET path` (or `POST` with `body`) on `who`'s sidecar: the status and the JSON answer. */
export const api = async (stack: DemoStack, who: Who, path: string, body?: unknown) => {
  const res = await fetch(`${stack.sidecarUrl(who).replace(/^ws/, 'http')}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

/** Until `check` holds, asking again every 250 ms (state another process reaches in its own time). */
export async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; !(await check()); tries++) {
    if (tries > 80) throw new Error(`waited 20 s for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** A new document of Alice's with Bob as `role`, accepted by Bob, both plain pages on it; its id. */
export async function shareWithBob(
  stack: DemoStack,
  pages: Record<Who, Page>,
  title: string,
  role: 'editor' | 'commenter' | 'viewer',
): Promise<string> {
  const made = await api(stack, 'alice', '/v1/docs', { title, members: [{ number: stack.number('bob'), role }] })
  expect(made.status).toBe(201)
  const docId = String(made.json['docId'])
  await until(
    async () =>
      ((await api(stack, 'bob', '/v1/invites')).json['invites'] as { id: string }[]).some((i) => i.id === docId),
    'Bob invited',
  )
  expect((await api(stack, 'bob', `/v1/invites/${docId}/accept`, {})).status).toBe(200)
  const linkTo = (who: Who) => stack.link(who).replace(/doc=[^&]+/, `doc=${docId}`)
  await pages.alice.goto(linkTo('alice'))
  await waitForAllSent(pages.alice)
  await pages.bob.goto(linkTo('bob'))
  return docId
}
