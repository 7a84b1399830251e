// passport-oauth2's state store interface, adapted to our flows. The store keeps nothing itself:
// `store` receives, as the `state` option of authenticate(), a function that starts the flow, and
// `verify` finds, on the request Passport is given, the flow the callback route already checked
// (state, flow cookie, CSRF binding) before Passport ran.

/** Where `verify` finds the checked flow on the request Passport is given. */
export const CHECKED_FLOW = Symbol('express-auth-service checked flow')

/** What the store reads of the flow the callback checked (the whole flow is lib/core/sign-in/flow.ts's). */
export interface CheckedFlow {
  readonly verifier?: string
}

export interface FlowStart {
  begin(verifier: string | undefined): string
}

type Done = (error: Error | null, result?: unknown, info?: unknown) => void

export const flowStateStore = Object.freeze({
  // passport-oauth2 picks the call by the number of parameters: keep all five (and four below).
  store(_req: unknown, verifier: string | undefined, start: FlowStart, _meta: unknown, done: Done): void {
    try {
      done(null, start.begin(verifier))
    } catch (error) {
      done(error as Error)
    }
  },
  verify(req: { [CHECKED_FLOW]?: CheckedFlow }, _state: unknown, _meta: unknown, done: Done): void {
    const flow = req[CHECKED_FLOW]
    if (!flow) return done(null, false, { message: 'the state or the flow cookie did not match' })
    // A string is the PKCE verifier (passport-oauth2 sends it with the code); true means no PKCE.
    done(null, flow.verifier ?? true, flow)
  },
})
