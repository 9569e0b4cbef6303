import { defineConfig } from 'vite'

// The demo page. `npm start` runs this config in-process (see src/stack.ts).
export default defineConfig({
  root: import.meta.dirname,
  clearScreen: false,
  server: { host: '127.0.0.1' },
  // Two pages: the editor and the chat console (console.html).
  build: { rollupOptions: { input: { main: `${import.meta.dirname}/index.html`, console: `${import.meta.dirname}/console.html` } } },
})
