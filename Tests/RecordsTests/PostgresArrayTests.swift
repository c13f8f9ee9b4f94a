import TestSupport
import Testing

@testable import Records

/// The array literals a batch of intents travels in, and their round trip through the real PostgreSQL.
@Suite(.blocking) struct PostgresArrayTests {
    /// Vectors from PostgreSQL's array input rules (docs, "8.15.2 Array Value Input": a double-quoted
    /// element takes `\"` and `\\` for a quote and a backslash; an unquoted NULL is the null value).
    @Test(arguments: [
        ([] as [String?], "{}"),
        (["a"], #"{"a"}"#),
        (["a", nil, ""], #"{"a",NULL,""}"#),
        (["NULL"], #"{"NULL"}"#),
        ([#"say "hi""#, #"back\slash"#], #"{"say \"hi\"","back\\slash"}"#),
        (["{a,b}", " spaced ", "한국어 🙂"], #"{"{a,b}"," spaced ","한국어 🙂"}"#),
    ])
    func textLiterals(elements: [String?], literal: String) throws {
        var array = PostgresArray()
        for element in elements { try array.append(element) }
        #expect(array.literal == literal)
    }

    @Test func integersAndTheNulRefusal() throws {
        var numbers = PostgresArray()
        for n in [0, -1, Int64.max] as [Int64] { numbers.append(n) }
        #expect(numbers.literal == "{0,-1,9223372036854775807}")
        var text = PostgresArray()
        #expect(throws: RecordsError.self) { try text.append("a\u{0}b") }
    }

    /// Bytes travel as bytea's hex input form inside a quoted element: `"\\x…"`.
    @Test func byteaElementsAreHex() {
        var bodies = PostgresArray()
        bodies.append(bytea: [0, 1, 0x7F, 0xFF])
        bodies.append(bytea: [])
        bodies.append(bytea: Array(#"{"a":"\""}"#.utf8))
        #expect(bodies.literal == #"{"\\x00017fff","\\x","\\x7b2261223a225c22227d"}"#)
    }

    /// Intents whose every text field holds what array literals must escape read back byte for byte.
    @Test func awkwardIntentsRoundTripThroughPostgres() throws {
        let test = try TestStore.make(.postgres)
        defer { test.close() }
        var awkward = Sample.intent(owner: #"o"w\n{e,r} "#, key: #"k"e\y,{}"#, contentType: nil)
        awkward.objectKey = "NULL"
        awkward.permanentKey = ""
        awkward.metadataJSON = #"{"caption":"a \"b\" \\ c","ko":"한국어"}"#
        let plain = Sample.intent()
        try test.store.putIntents([awkward, plain])
        #expect(try test.store.intent(imageKey: awkward.imageKey) == awkward)
        #expect(try test.store.intent(imageKey: plain.imageKey) == plain)
        var nul = Sample.intent()
        nul.ownerId = "a\u{0}"
        #expect(throws: RecordsError.self) { try test.store.putIntents([nul]) }
    }
}
