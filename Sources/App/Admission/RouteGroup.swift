import HTTPServer
import Uploads

/// The routes of one front door: each admits its caller through the gate, runs its handler, and
/// answers every failure (the gate's refusal, a check's, the work's) through the group's `presenter`;
/// every response is marked with the caller's user id for the access log (`Response.marked`).
///
/// Handlers answered on the event loop allocate nothing for this wrapper: the closures are captured
/// once, when the route is made, and per request the two-phase forms allocate only the worker's closure.
struct RouteGroup<Presenter: ErrorPresenter>: Sendable {
    /// Admission.
    let gate: Gate
    /// The group's error presenter.
    let presenter: Presenter

    /// What a check decides: the answer now, on the event loop, or work for the worker pool.
    enum Step<Work: Sendable> {
        /// Answer at once (work cheap enough for the loop).
        case now(Response)
        /// Run `perform` with this on the worker pool.
        case later(Work)
    }

    /// A handler that answers with `body` on the event loop.
    func route(
        _ scope: Gate.Scope, _ body: @escaping @Sendable (Caller, Request) throws(Presenter.Failure) -> Response
    ) -> Handler {
        { [self] request in
            admitting(request, scope) { caller in
                .respond(answer(caller) { () throws(Presenter.Failure) in try body(caller, request) })
            }
        }
    }

    /// A handler that checks the request with `validate` on the event loop, then runs `perform` on the
    /// worker pool.
    func route<Work: Sendable>(
        _ scope: Gate.Scope, validate: @escaping @Sendable (Caller, Request) throws(Presenter.Failure) -> Work,
        perform: @escaping @Sendable (Caller, Work) throws(Presenter.Failure) -> Response
    ) -> Handler {
        { [self] request in
            admitting(request, scope) { caller in
                let work: Work
                do throws(Presenter.Failure) {
                    work = try validate(caller, request)
                } catch {
                    return .respond(answer(caller) { () throws(Presenter.Failure) in throw error })
                }
                return .blocking { answer(caller) { () throws(Presenter.Failure) in try perform(caller, work) } }
            }
        }
    }

    /// A handler of an issuing route checked and signed on the event loop (`body`), answered only once
    /// the URL's intent is stored: `.deferred` (no worker held) until the commit ends, or at once when
    /// there is nothing to store (a HEAD); an intent not stored is answered through the presenter.
    func route(
        _ scope: Gate.Scope,
        promising body: @escaping @Sendable (Caller, Request) throws(Presenter.Failure) -> Pending<Response>
    ) -> Handler {
        { [self] request in
            admitting(request, scope) { caller in
                let pending: Pending<Response>
                do throws(Presenter.Failure) {
                    pending = try body(caller, request).map { response in marked(response, caller) }
                } catch {
                    return .respond(answer(caller) { () throws(Presenter.Failure) in throw error })
                }
                return pending.result(refusal: refusal(caller))
            }
        }
    }

    /// A handler of an issuing route checked with `validate` on the event loop and `perform`ed on the
    /// worker pool (the store decides who holds the key), answered only once the URL's intent is stored:
    /// the worker hands the answer on to the commit's completion and is free again meanwhile.
    func route<Work: Sendable>(
        _ scope: Gate.Scope, validate: @escaping @Sendable (Caller, Request) throws(Presenter.Failure) -> Work,
        promising perform: @escaping @Sendable (Caller, Work) throws(Presenter.Failure) -> Pending<Response>
    ) -> Handler {
        { [self] request in
            admitting(request, scope) { caller in
                let work: Work
                do throws(Presenter.Failure) {
                    work = try validate(caller, request)
                } catch {
                    return .respond(answer(caller) { () throws(Presenter.Failure) in throw error })
                }
                return .blockingDeferred { responder in
                    let pending: Pending<Response>
                    do throws(Presenter.Failure) {
                        pending = try perform(caller, work).map { response in marked(response, caller) }
                    } catch {
                        responder.respond(answer(caller) { () throws(Presenter.Failure) in throw error })
                        return
                    }
                    pending.answer(responder, refusal: refusal(caller))
                }
            }
        }
    }

    /// A handler that lets `decide` answer on the event loop or hand work to the worker pool
    /// (`perform`): for routes whose usual case needs no blocking call (a part URL of an upload
    /// already checked).
    func route<Work: Sendable>(
        _ scope: Gate.Scope, decide: @escaping @Sendable (Caller, Request) throws(Presenter.Failure) -> Step<Work>,
        perform: @escaping @Sendable (Caller, Work) throws(Presenter.Failure) -> Response
    ) -> Handler {
        { [self] request in
            admitting(request, scope) { caller in
                let step: Step<Work>
                do throws(Presenter.Failure) {
                    step = try decide(caller, request)
                } catch {
                    return .respond(answer(caller) { () throws(Presenter.Failure) in throw error })
                }
                switch step {
                case .now(let response):
                    return .respond(answer(caller) { () throws(Presenter.Failure) in response })
                case .later(let work):
                    return .blocking { answer(caller) { () throws(Presenter.Failure) in try perform(caller, work) } }
                }
            }
        }
    }

    /// `body(caller)` for an admitted caller, else the refusal in the group's dialect.
    private func admitting(_ request: Request, _ scope: Gate.Scope, _ body: (Caller) -> HandlerResult)
        -> HandlerResult
    {
        switch gate.admit(request, scope) {
        case .admitted(let caller): return body(caller)
        case .refused(let refusal, let userId):
            var response = presenter.response(for: presenter.failure(refused: refusal))
            response.userId = userId
            return .respond(response)
        }
    }

    /// The answer to an intent that was not stored, in the group's dialect, marked with the caller.
    private func refusal(_ caller: Caller) -> @Sendable (UploadError) -> Response {
        { [self] error in marked(presenter.response(for: presenter.failure(upload: error)), caller) }
    }

    /// `response` marked with the caller's user id, for the access log (and its warning: `Response.marked`).
    private func marked(_ response: Response, _ caller: Caller) -> Response { response.marked(for: caller) }

    /// The response of `body`, or of the failure it throws, marked with the caller's user id.
    private func answer(_ caller: Caller, _ body: () throws(Presenter.Failure) -> Response) -> Response {
        var response: Response
        do throws(Presenter.Failure) {
            response = try body()
        } catch {
            response = presenter.response(for: error)
        }
        return response.marked(for: caller)
    }
}
