import HTTPServer

extension Gate {
    /// The house's routes (native, explain): failures answered by `HousePresenter`.
    var house: RouteGroup<HousePresenter> { RouteGroup(gate: self, presenter: HousePresenter()) }

    /// A house route answered on the event loop (`RouteGroup.route(_:_:)`).
    func route(
        _ scope: Scope, _ body: @escaping @Sendable (Caller, Request) throws(APIError) -> Response
    ) -> Handler {
        house.route(scope, body)
    }

    /// A house route checked on the event loop and performed on the worker pool
    /// (`RouteGroup.route(_:validate:perform:)`).
    func route<Work: Sendable>(
        _ scope: Scope, validate: @escaping @Sendable (Caller, Request) throws(APIError) -> Work,
        perform: @escaping @Sendable (Caller, Work) throws(APIError) -> Response
    ) -> Handler {
        house.route(scope, validate: validate, perform: perform)
    }
}
