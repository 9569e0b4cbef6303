// A parent for the orphaning test, run as a process of its own: starts two group children (one
// that ignores SIGTERM), prints their pids, and waits to be killed.
import { spawnInGroup } from '../src/index.ts'

const polite = spawnInGroup(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
  env: process.env,
  orphanGraceMs: 500,
})
const stubborn = spawnInGroup(
  process.execPath,
  ['-e', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"],
  {
    env: process.env,
    orphanGraceMs: 500,
    onLine: (line) => line === 'ready' && console.log(`${polite.pid} ${stubborn.pid}`),
  },
)
setInterval(() => {}, 1000)
