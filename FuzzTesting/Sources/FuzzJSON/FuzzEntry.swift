import CFuzzShim
import JSON

/// The depth of nested arrays and objects in `value` (a scalar is 0).
func depth(_ value: JSONValue) -> Int {
    switch value {
    case .array(let items): return 1 + (items.map(depth).max() ?? 0)
    case .object(let object): return 1 + (object.members.map { depth($0.value) }.max() ?? 0)
    default: return 0
    }
}

/// One fuzz input = a request body as `POST /presigned-url` and `POST /images` hand it to the parser.
///
/// Properties checked on every input (a violated precondition is a crash = a finding): no trap or hang;
/// what is accepted is valid UTF-8 within the depth limit; its serialization parses back to the same
/// value and serializes to the same bytes again; the same bytes at another address parse the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size)
    let limits = JSONParser.Limits(maxDepth: 16, maxBytes: 4096)
    let parser = JSONParser(limits: limits)
    let whole = try? parser.parse(bytes)
    var shifted: [UInt8] = [0x20]
    shifted.append(contentsOf: bytes)
    let moved = shifted.withUnsafeBytes { try? parser.parse(UnsafeRawBufferPointer(rebasing: $0[1...])) }
    precondition(moved == whole, "result depends on the address")
    guard let value = whole else { return 0 }
    precondition(size <= limits.maxBytes, "input over maxBytes accepted")
    precondition(String(validating: Array(bytes), as: UTF8.self) != nil, "invalid UTF-8 accepted")
    precondition(depth(value) <= limits.maxDepth, "nesting over maxDepth accepted")
    let text = value.serialized()
    precondition(String(validating: text, as: UTF8.self) != nil, "serialization is not UTF-8")
    let again = try? JSONParser(limits: JSONParser.Limits(maxDepth: 16, maxBytes: 1 << 20)).parse(text)
    precondition(again == value, "serialization does not parse back to the value")
    precondition(again!.serialized() == text, "serialization is not stable")
    return 0
}

// See FuzzHTTP1: SwiftPM's `--defsym main=<Module>_main` needs this symbol under -parse-as-library.
@_cdecl("FuzzJSON_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var c = argc
    var v = argv
    return LLVMFuzzerRunDriver(&c, &v) { data, size in fuzzTestOneInput(data, size) }
}
