import JSON
import TestSupport
import Testing

/// The YAML subset reader against PyYAML's `safe_load` (scripts/yaml_crosscheck.py): each vector is
/// read by both and must give the same value, members in the same order; vectors name their source.
@Suite struct YAMLReaderTests {
    /// (source, document).
    static let vectors: [(String, String)] = [
        (
            "YAML 1.2 spec, example 2.3 (block mapping of sequences)",
            "american:\n  - Boston Red Sox\n  - Detroit Tigers\nnational:\n  - New York Mets\n  - Chicago Cubs\n"
        ),
        (
            "YAML 1.2 spec, example 2.4 (sequence of mappings)",
            "-\n  name: Mark McGwire\n  hr:   65\n- name: Sammy Sosa\n  hr: 63\n"
        ),
        (
            "YAML 1.2 spec, examples 2.5 and 2.6 (flow collections)",
            "- [name, hr, avg]\n- {hr: 65, avg: 0.278}\n- {}\n- []\n"
        ),
        ("YAML 1.2 spec, example 2.13 (literal block scalar)", "text: |\n  \\//||\\/||\n  // ||  ||__\nnext: 1\n"),
        (
            "YAML 1.2 spec, example 2.14 (folded, here with strip chomping)",
            "d: >-\n  Mark McGwire's\n  year was crippled\n\n  by a knee injury.\n"
        ),
        ("YAML 1.2 spec, 8.1.3 (folding around more-indented lines)", "d: >\n  a\n  b\n\n    c\n  d\n"),
        ("YAML 1.2 spec, 8.1.1.2 (keep chomping)", "d: |+\n  a\n\n\ne: x\n"),
        (
            "quoted scalars, as the API document quotes status codes",
            "a: 'it''s'\nb: \"q\\\"\\n\\u00e9\"\n'200': { description: OK., c: '#/x' }\n"
        ),
        (
            "YAML 1.1 plain scalars (PyYAML's resolver: null, Booleans, numbers, strings)",
            "- ~\n- null\n-\n- yes\n- Off\n- TRUE\n- 12\n- -7\n- 3.0.3\n- 1.5\n- 2.5e+3\n- 0\n"
        ),
        (
            "plain scalar continued on more-indented lines",
            "key: first line\n  second line\n\n  after a blank\nother: x\n"
        ),
        ("comments and blank lines", "# top\na: 1 # trailing\n\n# between\nb:\n  # inside\n  c: 2\n"),
        ("empty and nested flow values", "r: { a: { b: [1, {c: d}] }, e: }\ns: [ ]\n"),
        ("a sequence at its key's indentation", "list:\n- a\n- b\nend: true\n"),
    ]

    /// Documents outside the subset: refused with their line, never read differently than PyYAML would.
    static let refused = [
        "a: &x 1\n", "a: *x\n", "a: !!str 1\n", "--- \na: 1\n", "a: 0x1F\n", "a: 0777\n", "a: 1_000\n", "a: 1:30\n",
        "a: .inf\n", "? a\n: b\n", "a:\n\t- b\n", "a: 'unterminated\n  more'\n", "200: x\n", "a: [1, 2\n",
        "a: b: c\n", "a: 1\na: 2\n",
    ]

    /// True when both are the same value, numbers compared by value (PyYAML writes 2.5e+3 as 2500.0).
    static func same(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.number(let a), .number(let b)): return a.double == b.double
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.object(let a), .object(let b)):
            return a.keys == b.keys && zip(a, b).allSatisfy { same($0.value, $1.value) }
        default: return lhs == rhs
        }
    }

    @Test func readsAsPyYAMLDoes() throws {
        struct Input: Encodable { var documents: [String] }
        struct Output: Decodable { var results: [String?] }
        let python = try PythonScript.run(
            "yaml_crosscheck.py", input: Input(documents: Self.vectors.map(\.1)), as: Output.self
        ).results
        for ((source, text), expected) in zip(Self.vectors, python) {
            let theirs = try JSONValue(parsing: Array(try #require(expected, "PyYAML refused \(source)").utf8))
            let ours = try YAMLReader.value(text)
            #expect(
                Self.same(ours, theirs),
                "\(source): \(String(decoding: ours.serialized(), as: UTF8.self)) vs \(String(decoding: theirs.serialized(), as: UTF8.self))"
            )
        }
    }

    @Test(arguments: refused)
    func refusesWhatItDoesNotRead(text: String) {
        #expect(throws: JSONError.self, "\(text.debugDescription)") { try YAMLReader.value(text) }
    }

    @Test func errorsNameTheLine() {
        do {
            _ = try YAMLReader.value("a: 1\nb:\n  c: &anchor 2\n")
            Issue.record("an anchor was read")
        } catch {
            guard case .yaml(let line, _) = error.reason else {
                Issue.record("\(error)")
                return
            }
            #expect(line == 3)
        }
    }
}
