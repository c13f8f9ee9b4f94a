/// A setting that is one of a fixed set of names (`auth.mode`, `s3.addressing`, `tls.minVersion`),
/// held in the configuration as an enum, so nothing downstream parses the name again.
struct ConfigChoice {
    /// The accepted names, in the order messages list them.
    let names: [String]
    /// The current value's name.
    let get: (PresigndConfig) -> String
    /// Sets the value named `name`; false (nothing set) when no value has that name.
    let set: (inout PresigndConfig, String) -> Bool

    /// The choice of the enum at `property`, its raw values as names.
    static func of<Value: RawRepresentable & CaseIterable>(_ property: WritableKeyPath<PresigndConfig, Value>)
        -> ConfigChoice where Value.RawValue == String
    {
        ConfigChoice(
            names: Value.allCases.map(\.rawValue), get: { $0[keyPath: property].rawValue },
            set: { config, name in
                guard let value = Value(rawValue: name) else { return false }
                config[keyPath: property] = value
                return true
            })
    }

    /// The problem text of a name that is not one of `names`.
    var refusal: String { "must be one of " + names.joined(separator: ", ") }
}
