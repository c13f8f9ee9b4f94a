import HTTPServer

/// The routes of one front door: each admits its caller through the gate, runs its handler, and
/// answers every failure (the gate's refusal, a check's, the work's) through the group's `presenter`;
/// every response is marked with the caller's user id for the access log.
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

    /// The response of `body`, or of the failure it throws, marked with the caller's user id.
    private func answer(_ caller: Caller, _ body: () throws(Presenter.Failure) -> Response) -> Response {
        var response: Response
        do throws(Presenter.Failure) {
            response = try body()
        } catch {
            response = presenter.response(for: error)
        }
        response.userId = caller.userId
        return response
    }
}
