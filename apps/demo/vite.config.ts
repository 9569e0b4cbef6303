import { defineConfig } from 'vite'

// The demo page. `npm start` runs this config in-process (see src/stack.ts).
export default defineConfig({
  root: import.meta.dirname,
  clearScreen: false,
  server: { host: '127.0.0.1' },
})
