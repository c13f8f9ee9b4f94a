/// The flags of one command line, parsed but not yet applied to the configuration.
///
/// Accepted: an optional first word `healthcheck`, `explain` or `token` (or the two words `notifications
/// setup`, which take `--push-endpoint URL`), then `--config PATH`, `--host ADDRESS`,
/// `--port PORT` (each also as `--flag=value`), `--check-config`, `--version`, `--help` / `-h`.
/// A repeated flag keeps its last value. `explain` takes one URL and `--header` (repeatable),
/// `--method` and `--error-xml`; `token` takes `--user ID` (required) and `--ttl DURATION` (`1h`).
struct CommandLineFlags {
    /// `--config`: the config file to read.
    var configPath: String?
    /// `--host`: overrides `server.host`.
    var host: String?
    /// `--port`: overrides `server.port` (still text; parsed when applied).
    var port: String?
    /// `--check-config` was given.
    var checkConfig = false
    /// `--version` was given.
    var version = false
    /// `--help` or `-h` was given.
    var help = false
    /// The first word was `healthcheck`: probe the running server's `/healthz` instead of serving.
    var healthcheck = false
    /// The first word was `explain`: the URL and what came with it (nil otherwise).
    var explain: ExplainArguments?
    /// The first word was `token`: the user and lifetime of the development token (nil otherwise).
    var token: TokenArguments?
    /// The first words were `notifications setup`: set up the store's notifications.
    var notificationsSetup = false
    /// `--push-endpoint` of `notifications setup`: overrides `events.pushEndpoint`.
    var pushEndpoint: String?
    /// Unknown flags, missing values, stray arguments.
    var problems: [ConfigProblem] = []

    /// Parses `arguments` (without the program name).
    init(arguments: [String]) {
        var position = 0
        if arguments.first == "healthcheck" {
            healthcheck = true
            position = 1
        }
        var explainURL: String?
        var explainHeaders: [String] = []
        var explainMethod: String?
        var explainXML: String?
        let explaining = arguments.first == "explain"
        if explaining { position = 1 }
        let minting = arguments.first == "token"
        if minting { position = 1 }
        let notifying = arguments.first == "notifications"
        if notifying {
            position = 1
            if arguments.count > 1 && arguments[1] == "setup" {
                notificationsSetup = true
                position = 2
            } else {
                problems.append(ConfigProblem(keyPath: "notifications", message: "takes one command: setup"))
            }
        }
        var tokenUser: String?
        var tokenTTL: String?
        while position < arguments.count {
            let argument = arguments[position]
            position += 1
            if explaining && explainURL == nil && !argument.hasPrefix("-") {
                explainURL = argument
                continue
            }
            guard argument.hasPrefix("-"), argument != "-", argument != "--" else {
                problems.append(ConfigProblem(keyPath: argument, message: "unexpected argument (flags start with --)"))
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            switch name {
            case "--push-endpoint" where notifying:
                var value = inlineValue
                if value == nil, position < arguments.count, !arguments[position].hasPrefix("--") {
                    value = arguments[position]
                    position += 1
                }
                guard let value, !value.isEmpty else {
                    problems.append(ConfigProblem(keyPath: name, message: "requires a value"))
                    continue
                }
                pushEndpoint = value
            case "--user" where minting, "--ttl" where minting:
                var value = inlineValue
                if value == nil, position < arguments.count, !arguments[position].hasPrefix("--") {
                    value = arguments[position]
                    position += 1
                }
                guard let value else {
                    problems.append(ConfigProblem(keyPath: name, message: "requires a value"))
                    continue
                }
                if name == "--user" { tokenUser = value } else { tokenTTL = value }
            case "--header" where explaining, "--method" where explaining, "--error-xml" where explaining:
                var value = inlineValue
                if value == nil, position < arguments.count, !arguments[position].hasPrefix("--") {
                    value = arguments[position]
                    position += 1
                }
                guard let value else {
                    problems.append(ConfigProblem(keyPath: name, message: "requires a value"))
                    continue
                }
                switch name {
                case "--header": explainHeaders.append(value)
                case "--method": explainMethod = value
                default: explainXML = value
                }
            case "--config", "--host", "--port":
                var value = inlineValue
                if value == nil, position < arguments.count, !arguments[position].hasPrefix("--") {
                    value = arguments[position]
                    position += 1
                }
                guard let value else {
                    problems.append(ConfigProblem(keyPath: name, message: "requires a value"))
                    continue
                }
                switch name {
                case "--config": configPath = value
                case "--host": host = value
                default: port = value
                }
            case "--check-config", "--version", "--help", "-h":
                guard inlineValue == nil else {
                    problems.append(ConfigProblem(keyPath: name, message: "takes no value"))
                    continue
                }
                switch name {
                case "--check-config": checkConfig = true
                case "--version": version = true
                default: help = true
                }
            default:
                problems.append(ConfigProblem(keyPath: name, message: "unknown flag (see --help)"))
            }
        }
        if minting {
            var lifetime = TokenArguments.defaultLifetimeSeconds
            if let tokenTTL {
                if let seconds = TokenArguments.seconds(from: tokenTTL) {
                    lifetime = seconds
                } else {
                    problems.append(
                        ConfigProblem(
                            keyPath: "--ttl",
                            message: "must be a duration of 1 s to 30 days: digits and s, m, h or d, e.g. 1h "
                                + "(got \(ConfigText.quoted(tokenTTL)))"))
                }
            }
            if let tokenUser, !tokenUser.isEmpty, tokenUser.utf8.count <= 256 {
                token = TokenArguments(user: tokenUser, lifetimeSeconds: lifetime)
            } else {
                problems.append(
                    ConfigProblem(keyPath: "--user", message: "requires the user id the token is for (1-256 bytes)"))
            }
        }
        if explaining {
            if let explainURL {
                explain = ExplainArguments(
                    url: explainURL, headers: explainHeaders, method: explainMethod, errorXMLPath: explainXML)
            } else {
                problems.append(ConfigProblem(keyPath: "explain", message: "requires the URL the client requested"))
            }
        }
    }
}
