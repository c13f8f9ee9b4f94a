import Config
import Records

/// The configured upload types and the rules a request must meet to get a URL for one.
///
/// Every check a front door needs is here (`+Checks`), so a new rule of a type is written once; the
/// front doors only say which field a problem belongs to and how it reads in their dialect.
public final class UploadCatalog: Sendable {
    /// The types, in configuration order.
    public let types: [UploadType]
    /// The media types the content check allows, by type name, for the types whose check is on
    /// (`types.*.contentCheck`, docs/content-check.md).
    private let checkedTypes: [String: [String]]
    /// Every configured type's name.
    private let knownTypes: Set<String>

    /// The catalog of `configs`; `.configuration` names a template that does not parse.
    public init(_ configs: [UploadTypeConfig]) throws(UploadError) {
        var types: [UploadType] = []
        for config in configs { types.append(try UploadType(config: config)) }
        self.types = types
        var checked: [String: [String]] = [:]
        for type in configs where type.contentCheck { checked[type.name] = type.contentTypes }
        checkedTypes = checked
        knownTypes = Set(configs.map(\.name))
    }

    /// The type called `name`: a linear search, since there are a handful of types and comparing short
    /// names costs less than hashing one.
    public func type(named name: String) -> UploadType? {
        for t in types where t.config.name == name { return t }
        return nil
    }

    /// Whether a confirmed upload of `intent`'s type is scanned before it is published
    /// (`types.<T>.scan`: `clamav`); false for a type no longer configured.
    public func scans(_ intent: UploadIntent) -> Bool { type(named: intent.type)?.config.scan == .clamav }

    /// Whether a type called `name` is configured.
    public func knows(_ name: String) -> Bool { knownTypes.contains(name) }

    /// The media types the content check allows for `intent`, or nil when its type's check is off. A type
    /// no longer configured is checked when every type its intent allowed is one the check recognises.
    public func contentCheck(of intent: UploadIntent) -> [String]? {
        if let allowed = checkedTypes[intent.type] { return allowed }
        if knownTypes.contains(intent.type) { return nil }
        return UploadTypeConfig.checksByDefault(intent.allowedContentTypes) ? intent.allowedContentTypes : nil
    }
}
