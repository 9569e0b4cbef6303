import { afterEach, describe, expect, it } from 'vitest'
import { startLinkPage, type LinkPage } from './qr-page.ts'

const pages: LinkPage[] = []
afterEach(async () => {
  await Promise.all(pages.splice(0).map((p) => p.close()))
})

describe('the link page', () => {
  it('serves the current code as SVG with its deadline, then the outcome', async () => {
    const page = await startLinkPage()
    pages.push(page)
    const uri = 'sgnl://linkdevice?uuid=abc&pub_key=def'
    await page.set({ status: 'waiting', uri, deadline: 123 })
    const state = await (await fetch(`${page.url}state`)).json()
    expect(state).toMatchObject({ status: 'waiting', uri, deadline: 123 })
    expect(state.svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/)
    expect(await (await fetch(page.url)).text()).toContain('Linked devices')
    await page.set({ status: 'linked', number: '+15551234567' })
    expect(await (await fetch(`${page.url}state`)).json()).toEqual({ status: 'linked', number: '+15551234567' })
  })

  it('answers 421 to a Host that is not its loopback address (DNS rebinding) and 405 to a POST', async () => {
    const page = await startLinkPage()
    pages.push(page)
    const port = new URL(page.url).port
    const { request } = await import('node:http')
    const status = (host: string, method = 'GET') =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/state', method, headers: { host } }, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        req.on('error', reject)
        req.end()
      })
    expect(await status(`evil.example:${port}`)).toBe(421)
    expect(await status(`127.0.0.1:${port}`)).toBe(200)
    expect(await status(`localhost:${port}`)).toBe(200)
    expect(await status(`127.0.0.1:${port}`, 'POST')).toBe(405)
  })

  it('refuses to be framed on every answer (CSP frame-ancestors and X-Frame-Options)', async () => {
    const page = await startLinkPage()
    pages.push(page)
    for (const path of ['', 'state', 'nothing']) {
      const res = await fetch(`${page.url}${path}`)
      expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'")
      expect(res.headers.get('x-frame-options')).toBe('DENY')
    }
  })
})
