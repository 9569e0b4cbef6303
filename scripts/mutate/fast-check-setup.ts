/**
 * Property tests under mutation: a fixed seed (a mutant is killed or not the same way on every
 * run, so incremental results stay valid) and each property stopped, as a pass, after 0.5 s of
 * cases. Instrumented code runs several times slower, and the first cases are the ones that kill.
 */
import fc from 'fast-check'

fc.configureGlobal({ seed: 0x5eed, interruptAfterTimeLimit: 500, markInterruptAsFailure: false })
