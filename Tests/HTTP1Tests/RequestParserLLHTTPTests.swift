import Foundation
import HTTP1
import Testing

/// One case of Fixtures/llhttp-requests.json (nodejs/llhttp test/request/*.md, MIT; see LICENSE-llhttp).
struct LLHTTPCase: Decodable, Sendable, CustomTestStringConvertible {
    /// llhttp's own verdict on the input.
    struct Outcome: Decodable, Sendable {
        /// "accept", "reject", "incomplete" or "upgrade".
        let outcome: String
        /// Messages llhttp completed before it stopped.
        let messages: Int
    }

    /// Test-mode flags of the llhttp vector; only `skipBody` changes framing.
    struct Meta: Decodable, Sendable {
        let skipBody: Bool?
    }

    /// `llhttp/<file>:<line>`.
    let id: String
    /// The vector's title in llhttp's markdown.
    let name: String
    /// llhttp's mode: "request" is strict.
    let type: String
    /// The raw bytes, base64.
    let raw_b64: String
    /// Whether the input carries a Host line.
    let has_host: Bool
    /// Bytes after the last complete message, when llhttp accepted.
    let trailing_bytes: Int?
    /// llhttp's verdict.
    let llhttp: Outcome
    /// llhttp test-mode flags.
    let meta: Meta

    /// Whether llhttp was told to ignore bodies.
    var skipsBodies: Bool { meta.skipBody ?? false }

    /// The raw request bytes.
    var raw: [UInt8] { Array(Data(base64Encoded: raw_b64) ?? Data()) }

    var testDescription: String { "\(id) \(name)" }

    /// The `type == "request"` cases (llhttp in strict mode).
    static let strict: [LLHTTPCase] = {
        struct File: Decodable { let cases: [LLHTTPCase] }
        guard
            let url = Bundle.module.url(
                forResource: "llhttp-requests", withExtension: "json", subdirectory: "Fixtures"),
            let data = try? Data(contentsOf: url),
            let file = try? JSONDecoder().decode(File.self, from: data)
        else { return [] }
        return file.cases.filter { $0.type == "request" }
    }()
}

/// Checks our stream verdict against llhttp's: the same or stricter, never more permissive.
///
/// llhttp accept (M messages): we accept M messages, or (when llhttp left trailing bytes of a next
/// message) complete M and wait, or reject after at most M. llhttp reject (m): we reject after at
/// most m. llhttp incomplete (m): we wait after exactly m, or reject after at most m. Upgrade: any.
func isSameOrStricter(_ ours: StreamVerdict, than llhttp: LLHTTPCase.Outcome, trailingBytes: Int) -> Bool {
    switch (llhttp.outcome, ours) {
    case ("accept", .accept(let n)): return n == llhttp.messages && trailingBytes == 0
    case ("accept", .incomplete(let n)): return n == llhttp.messages && trailingBytes > 0
    case ("accept", .reject(let n)): return n <= llhttp.messages
    case ("reject", .reject(let n)): return n <= llhttp.messages
    case ("incomplete", .incomplete(let n)): return n == llhttp.messages
    case ("incomplete", .reject(let n)): return n <= llhttp.messages
    case ("upgrade", _): return true
    default: return false
    }
}

/// Adds `Host: h` after every `HTTP/1.1` request line, so that llhttp's Host-less vectors test
/// the other rules instead of all failing for the missing Host (used only for Host-less cases).
func injectingHost(_ raw: [UInt8]) -> [UInt8] {
    let marker = Array(" HTTP/1.1\r\n".utf8)
    var output: [UInt8] = []
    var i = 0
    while i < raw.count {
        if raw.count - i >= marker.count && Array(raw[i..<(i + marker.count)]) == marker {
            output.append(contentsOf: marker)
            output.append(contentsOf: "Host: h\r\n".utf8)
            i += marker.count
        } else {
            output.append(raw[i])
            i += 1
        }
    }
    return output
}

@Suite struct RequestParserLLHTTPTests {
    @Test("The fixture loads and holds llhttp's strict request cases")
    func fixtureLoads() {
        #expect(LLHTTPCase.strict.count == 134)
    }

    @Test("Our verdict is llhttp's or stricter, and the same in every split", arguments: LLHTTPCase.strict)
    func sameOrStricter(testCase: LLHTTPCase) {
        let raw = testCase.raw
        let whole = runStream(raw, skipBodies: testCase.skipsBodies)
        #expect(
            isSameOrStricter(whole, than: testCase.llhttp, trailingBytes: testCase.trailing_bytes ?? 0),
            "ours \(whole), llhttp \(testCase.llhttp.outcome) after \(testCase.llhttp.messages)")
        #expect(
            runStream(raw, readSizes: Array(repeating: 1, count: raw.count), skipBodies: testCase.skipsBodies) == whole,
            "one byte at a time")
        for split in 1..<max(1, raw.count) {
            #expect(runStream(raw, readSizes: [split], skipBodies: testCase.skipsBodies) == whole, "split at \(split)")
        }
        _ = parseHeadInEveryPrefix(raw)
    }

    /// llhttp-accepted cases we reject on purpose (with Host added), and why; each must stay rejected.
    static let stricterByDesign: [String: String] = [
        "llhttp/connection:159": "a second empty line before the next request line (we ignore exactly one)",
        "llhttp/method:138": "asterisk-form with M-SEARCH (only OPTIONS may use *)",
        "llhttp/method:375": "ICE/1.0 is not an HTTP version",
        "llhttp/method:405": "RTSP/1.0 is not an HTTP version",
        "llhttp/method:433": "RTSP/1.0 is not an HTTP version",
        "llhttp/sample:317": "HTTP/0.9-style request line without version",
        "llhttp/transfer-encoding:754": "Transfer-Encoding other than exactly chunked (501)",
        "llhttp/transfer-encoding:796": "more than one Transfer-Encoding line",
        "llhttp/method:7": "REPORT: a method we do not implement (501, close)",
        "llhttp/method:220": "PURGE: a method we do not implement (501, close)",
        "llhttp/method:248": "SEARCH: a method we do not implement (501, close)",
        "llhttp/method:276": "LINK: a method we do not implement (501, close)",
        "llhttp/method:314": "UNLINK: a method we do not implement (501, close)",
        "llhttp/method:347": "SOURCE: a method we do not implement (501, close)",
        "llhttp/method:485": "QUERY: a method we do not implement (501, close)",
        "llhttp/uri:168": "a fragment (#) in the request-target",
        "llhttp/uri:225": "userinfo in an absolute-form target",
    ]

    @Test("With Host added, llhttp's accepts are ours unless stricter by design", arguments: LLHTTPCase.strict)
    func withHostInjected(testCase: LLHTTPCase) {
        let raw = testCase.has_host ? testCase.raw : injectingHost(testCase.raw)
        let ours = runStream(raw, skipBodies: testCase.skipsBodies)
        #expect(
            isSameOrStricter(ours, than: testCase.llhttp, trailingBytes: testCase.trailing_bytes ?? 0),
            "ours \(ours), llhttp \(testCase.llhttp.outcome) after \(testCase.llhttp.messages)")
        #expect(
            runStream(raw, readSizes: Array(repeating: 1, count: raw.count), skipBodies: testCase.skipsBodies) == ours,
            "one byte at a time")
        guard testCase.llhttp.outcome == "accept" else { return }
        if let reason = Self.stricterByDesign[testCase.id] {
            guard case .reject = ours else {
                Issue.record("listed as stricter (\(reason)) but ours is \(ours)")
                return
            }
        } else {
            #expect(
                ours == .accept(messages: testCase.llhttp.messages) || (testCase.trailing_bytes ?? 0) > 0,
                "llhttp accepts; ours \(ours)")
        }
    }
}
