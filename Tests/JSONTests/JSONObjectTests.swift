import JSON
import Testing

@Suite struct JSONObjectTests {
    @Test func keepsOrderAndLooksUpByKey() {
        var object: JSONObject = ["z": 1, "a": 2]
        #expect(object.keys == ["z", "a"])
        #expect(object["a"] == 2)
        #expect(object["missing"] == nil)
        object["m"] = "new"
        object["z"] = 3
        #expect(object.keys == ["z", "a", "m"])
        #expect(object["z"] == 3)
        object["a"] = nil
        #expect(object.keys == ["z", "m"])
        let appendedDuplicate = object.append(key: "z", value: 9)
        #expect(!appendedDuplicate)
        #expect(object["z"] == 3)
    }

    @Test func largeObjectsStayConsistentThroughRemovals() {
        var object = JSONObject()
        for position in 0..<40 {
            let appended = object.append(key: "k\(position)", value: .number(JSONNumber(position)))
            #expect(appended)
        }
        let appendedDuplicate = object.append(key: "k39", value: .null)
        #expect(!appendedDuplicate)
        for position in stride(from: 0, to: 40, by: 2) { object["k\(position)"] = nil }
        #expect(object.count == 20)
        for position in 0..<40 {
            #expect(object["k\(position)"]?.intValue == (position % 2 == 1 ? position : nil))
        }
        #expect(object.keys.first == "k1")
    }

    @Test func equalityIsOrderSensitive() {
        let first: JSONObject = ["a": 1, "b": 2]
        let second: JSONObject = ["b": 2, "a": 1]
        #expect(first != second)
        #expect(first == JSONObject([("a", 1), ("b", 2)]))
    }
}
