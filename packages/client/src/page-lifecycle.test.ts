import { afterEach, describe, expect, test, vi } from 'vitest'
import { browserLifecycle } from './page-lifecycle.ts'

afterEach(() => vi.unstubAllGlobals())

/** A page: `document` with a visibility state and `window`, both event targets. */
function page(): { document: EventTarget & { visibilityState: string }; window: EventTarget } {
  const document = Object.assign(new EventTarget(), { visibilityState: 'visible' })
  const window = new EventTarget()
  vi.stubGlobal('document', document)
  vi.stubGlobal('window', window)
  return { document, window }
}

function pageTransition(type: string, persisted: boolean): Event {
  return Object.assign(new Event(type), { persisted })
}

describe('browserLifecycle', () => {
  test('is null where there is no page (no document, or no window)', () => {
    expect(browserLifecycle()).toBeNull()
    vi.stubGlobal('document', new EventTarget())
    expect(browserLifecycle()).toBeNull()
    vi.stubGlobal('document', undefined)
    vi.stubGlobal('window', new EventTarget())
    expect(browserLifecycle()).toBeNull()
  })

  test('onHide hears the page turning hidden and pagehide, not it turning visible; detaching stops both', () => {
    const { document, window } = page()
    let hidden = 0
    const detach = browserLifecycle()?.onHide(() => (hidden += 1))
    document.dispatchEvent(new Event('visibilitychange'))
    expect(hidden).toBe(0)
    document.visibilityState = 'hidden'
    document.dispatchEvent(new Event('visibilitychange'))
    window.dispatchEvent(pageTransition('pagehide', false))
    expect(hidden).toBe(2)
    detach?.()
    document.dispatchEvent(new Event('visibilitychange'))
    window.dispatchEvent(pageTransition('pagehide', false))
    expect(hidden).toBe(2)
  })

  test('onLeave hears pagehide, and back only from the back-forward cache; detaching stops both', () => {
    const { window } = page()
    const heard: string[] = []
    const detach = browserLifecycle()?.onLeave?.(
      () => heard.push('leave'),
      () => heard.push('back'),
    )
    window.dispatchEvent(pageTransition('pagehide', false))
    window.dispatchEvent(pageTransition('pageshow', false))
    window.dispatchEvent(pageTransition('pageshow', true))
    expect(heard).toEqual(['leave', 'back'])
    detach?.()
    window.dispatchEvent(pageTransition('pagehide', false))
    window.dispatchEvent(pageTransition('pageshow', true))
    expect(heard).toEqual(['leave', 'back'])
  })
})
