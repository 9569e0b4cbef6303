import { defineConfig } from 'vite'
import { workspaceResolve } from '../../workspace-conditions.ts'

// The demo page. `npm start` runs this config in-process (see src/stack.ts).
export default defineConfig({
  ...workspaceResolve,
  root: import.meta.dirname,
  clearScreen: false,
  server: { host: '127.0.0.1' },
  // Pages: the plain-text editor (index.html, which sends a visit without ?doc= home), the home page
  // (home.html), the rich-text editor (rich.html) and the chat console (console.html).
  build: {
    rollupOptions: {
      input: {
        main: `${import.meta.dirname}/index.html`,
        home: `${import.meta.dirname}/home.html`,
        rich: `${import.meta.dirname}/rich.html`,
        console: `${import.meta.dirname}/console.html`,
      },
    },
  },
})
