/** `@e2e-col/test-browser`: what e2e-col's browser tests share (a devDependency only). */
export { CHROMIUM, hasChromium, launchChromium } from './chromium.ts'
export { PAGE_WAIT_MS, waitForShown } from './page-wait.ts'
