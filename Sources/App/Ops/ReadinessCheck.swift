/// One check of `/readyz`: its name, the text shown for it, and whether it lets the server be ready.
struct ReadinessCheck: Sendable, Equatable {
    /// `database`, `storage` or `clock`.
    let name: String
    /// `ok`, `unknown…`, or what is wrong.
    let text: String
    /// False when this check makes the server not ready.
    let passes: Bool

    /// A passing check.
    static func ok(_ name: String) -> ReadinessCheck { ReadinessCheck(name: name, text: "ok", passes: true) }

    /// A failing check and why.
    static func failed(_ name: String, _ problem: String) -> ReadinessCheck {
        ReadinessCheck(name: name, text: problem, passes: false)
    }

    /// A check that could not be made (`unknown`, or `unknown (why)`); it does not fail readiness by
    /// itself: the check that kept it from being made does.
    static func unknown(_ name: String, _ why: String? = nil) -> ReadinessCheck {
        ReadinessCheck(name: name, text: why.map { "unknown (\($0))" } ?? "unknown", passes: true)
    }
}
