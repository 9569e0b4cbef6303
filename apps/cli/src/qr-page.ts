/**
 * The local page that shows the device-link QR code (easier to scan than a terminal): loopback only,
 * with a Host check so a page on another origin cannot read the link through DNS rebinding, and
 * never inside a frame (`frame-ancestors 'none'`, `X-Frame-Options: DENY`): a page that framed it
 * could dress the code up as something else to scan. It polls `/state` and shows the current code,
 * the countdown, and the outcome.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PHONE_STEPS, svgQr } from './qr.ts'

/** Sent with every answer: no framing, no sniffing, no caching. */
export const LINK_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
}

/** What the page shows. */
export type LinkPageState =
  | { status: 'waiting'; uri: string; deadline: number }
  | { status: 'linked'; number: string }
  | { status: 'failed'; message: string }

export interface LinkPage {
  readonly url: string
  set(state: LinkPageState): Promise<void>
  close(): Promise<void>
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Link e2e-col to Signal</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
#qr svg{width:18rem;height:18rem}#left{font-variant-numeric:tabular-nums}.done{color:#0a7a32}.bad{color:#a4000f}</style></head>
<body><h1>Link e2e-col to your Signal</h1>
<ol>${PHONE_STEPS.slice(1, 3)
  .map((s) => `<li>${s.trim().replace(/&/g, '&amp;')}</li>`)
  .join('')}</ol>
<p>Then point the camera at this code. <span id="left"></span></p>
<div id="qr" aria-label="device link QR code"></div><p id="status" role="status"></p>
<script>
async function tick(){
  try{const s=await (await fetch('/state',{cache:'no-store'})).json();
    const qr=document.getElementById('qr'),st=document.getElementById('status'),left=document.getElementById('left');
    if(s.status==='waiting'){if(qr.dataset.uri!==s.uri){qr.innerHTML=s.svg;qr.dataset.uri=s.uri}
      const n=Math.max(0,Math.round((s.deadline-Date.now())/1000));left.textContent='('+n+' s left)';st.textContent='Waiting for the scan…';st.className=''}
    else if(s.status==='linked'){qr.innerHTML='';left.textContent='';st.textContent='Linked. You can close this page; the terminal says what is next.';st.className='done';return}
    else{qr.innerHTML='';left.textContent='';st.textContent=s.message;st.className='bad';return}
  }catch{document.getElementById('status').textContent='setup has stopped';return}
  setTimeout(tick,1000)}
tick()
</script></body></html>`

/** Serves the page on 127.0.0.1 (`port` 0 = a free one). */
export async function startLinkPage(port = 0): Promise<LinkPage> {
  let body = JSON.stringify({ status: 'failed', message: 'starting…' })
  let bound = 0
  const server: Server = createServer((req, res) => {
    const host = (req.headers.host ?? '').toLowerCase()
    const headers = LINK_PAGE_HEADERS
    if (host !== `127.0.0.1:${bound}` && host !== `localhost:${bound}`) {
      res.writeHead(421, headers).end()
      return
    }
    if (req.method !== 'GET') res.writeHead(405, headers).end()
    else if (req.url === '/') res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
    else if (req.url === '/state') res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(body)
    else res.writeHead(404, headers).end()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  bound = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${bound}/`,
    async set(state) {
      body = JSON.stringify(state.status === 'waiting' ? { ...state, svg: await svgQr(state.uri) } : state)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
