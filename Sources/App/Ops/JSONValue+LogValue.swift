import JSON
import Logging

extension JSONValue: LogValue {
    /// The value as compact JSON (for nested fields such as readiness checks).
    public func appendLogJSON(to buffer: inout [UInt8]) { serialize(into: &buffer) }
}
