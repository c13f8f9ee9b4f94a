import JSON
import Testing

@Suite struct JSONValueTests {
    /// Compact documents serialize back to exactly the same bytes.
    @Test(arguments: [
        #"{"b":1,"a":[true,false,null,"x\"y",-0,1.5e+10,{}],"c":{"d":[]}}"#,
        #"[1E400,"\u0000\u001f",""]"#,
        #""\\/""#,
        "0",
    ])
    func compactDocumentsRoundTripByteForByte(_ text: String) throws {
        let value = try JSONValue(parsing: text)
        #expect(String(decoding: value.serialized(), as: UTF8.self) == text)
        #expect(value.jsonText == text)
    }

    @Test(arguments: validCases)
    func everyValidCaseRoundTrips(_ testCase: ValidCase) throws {
        let value = try JSONValue(parsing: testCase.bytes)
        #expect(try JSONValue(parsing: value.serialized()) == value)
    }

    @Test func serializeAppendsToABuffer() {
        var buffer = Array("prefix:".utf8)
        JSONValue.array([1, "two"]).serialize(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"prefix:[1,"two"]"#)
    }

    @Test func prettyPrintsReadably() throws {
        let value: JSONValue = [
            "server": ["port": 8080, "host": "127.0.0.1"], "list": ["jpg", "png"], "empty": [:], "nested": [[1]],
        ]
        let expected = """
            {
              "server": {
                "port": 8080,
                "host": "127.0.0.1"
              },
              "list": ["jpg", "png"],
              "empty": {},
              "nested": [
                [1]
              ]
            }

            """
        #expect(value.prettyPrinted() == expected)
        #expect(try JSONValue(parsing: value.prettyPrinted()) == value)
    }

    @Test func accessors() throws {
        let value = try JSONValue(parsing: #"{"s":"x","n":3,"b":true,"z":null,"a":[1],"o":{}}"#)
        #expect(value["s"]?.stringValue == "x")
        #expect(value["n"]?.intValue == 3)
        #expect(value["n"]?.int64Value == 3)
        #expect(value["b"]?.boolValue == true)
        #expect(value["z"]?.isNull == true)
        #expect(value["a"]?.arrayValue == [1])
        #expect(value["o"]?.objectValue == JSONObject())
        #expect(value["s"]?.intValue == nil)
        #expect(value["a"]?["x"] == nil)
        #expect(value.typeName == "object")
        #expect(value["a"]?.typeName == "array")
    }
}
