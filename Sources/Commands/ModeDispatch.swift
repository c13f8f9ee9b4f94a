import App
import Config
import Logging
import System

/// The modes of the `presignd` binary: the command line decides whether it prints its version, its
/// help or its checked configuration, probes a running server (`healthcheck`), explains a refused URL
/// (`explain`), mints a development token (`token`), sets up the store's notifications
/// (`notifications setup`), or serves (which `presignd` itself runs: it owns the signals).
public enum ModeDispatch {
    /// What the binary does next.
    public enum Outcome: Sendable {
        /// Exit with this status (the mode has printed what it had to).
        case exit(Int32)
        /// Serve with this configuration.
        case serve(PresigndConfig)
    }

    /// Runs the mode `arguments` ask for, with the process `environment`; problems go to `log`, answers
    /// to standard output. `nowSeconds` is the wall clock's time (explain compares URLs with it).
    public static func dispatch(
        arguments: [String], environment: [String: String], log: LogSink, nowSeconds: () -> Int64
    ) -> Outcome {
        let action: CommandLineAction
        switch ConfigLoader.load(arguments: arguments, environment: environment) {
        case .success(let a): action = a
        case .failure(let error):
            for p in error.problems { log.writeLine("presignd: configuration: \(p)") }
            // A health check that cannot read the configuration reports "unhealthy" (1): Docker reserves 2.
            return .exit(arguments.first == "healthcheck" ? 1 : 2)
        }
        switch action {
        case .version:
            print("presignd \(ConfigLoader.version)")
            return .exit(0)
        case .help(let text):
            print(text)
            return .exit(0)
        case .checkConfig(let c):
            print(c.redactedJSON())
            for note in c.notes { log.writeLine("presignd: note: \(note)") }
            return .exit(0)
        case .healthcheck(let c, let addressFromFlags):
            let outcome = HealthCheck.run(config: c, useListenInfo: !addressFromFlags)
            print(outcome.detail)
            return .exit(outcome.healthy ? 0 : 1)
        case .explain(let c, let arguments):
            let outcome = ExplainCommand.run(
                config: c, arguments: arguments, nowSeconds: nowSeconds(), environment: environment)
            print(outcome.output)
            return .exit(outcome.status)
        case .token(let c, let arguments):
            let outcome = TokenCommand.run(config: c, arguments: arguments, nowSeconds: nowSeconds())
            for note in outcome.notes { log.writeLine("presignd: note: \(note)") }
            if outcome.status == 0 { print(outcome.output) } else { log.writeLine(outcome.output) }
            return .exit(outcome.status)
        case .notificationsSetup(let c, let pushEndpoint):
            let outcome = NotificationsCommand.run(
                config: c, pushEndpoint: pushEndpoint, nowSeconds: nowSeconds(), environment: environment)
            if outcome.status == 0 { print(outcome.output) } else { log.writeLine(outcome.output) }
            return .exit(outcome.status)
        case .run(let c):
            return .serve(c)
        }
    }
}
