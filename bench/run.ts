/** `npm run bench`: runs every benchmark in turn. Each prints its table and writes bench/results/. */
import { benchFlushEncoding } from '../packages/client/bench/flush-encoding.ts'
import { benchProtocol } from './protocol.ts'

benchProtocol()
benchFlushEncoding()
