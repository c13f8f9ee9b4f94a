import Testing

@testable import Uploads

/// How the native API cuts a declared size into parts (pure).
@Suite struct PartPlanTests {
    static let mib: Int64 = 1_048_576

    @Test func theServerChoosesTheSmallestWholeMiBAtLeastFiveWithinMaxParts() throws {
        #expect(try PartPlan.partSize(size: 1, requested: nil, maxParts: 10_000) == 5 * Self.mib)
        #expect(try PartPlan.partSize(size: 1024 * Self.mib, requested: nil, maxParts: 10_000) == 5 * Self.mib)
        // 100 GiB in at most 10,000 parts: 10.24 MiB each, rounded up to 11 MiB.
        #expect(try PartPlan.partSize(size: 100 * 1024 * Self.mib, requested: nil, maxParts: 10_000) == 11 * Self.mib)
        // A lower maxParts grows the parts: 60 MiB in at most 4 parts.
        #expect(try PartPlan.partSize(size: 60 * Self.mib, requested: nil, maxParts: 4) == 15 * Self.mib)
        // 5 TiB, the most S3 stores, fits 10,000 parts of 525 MiB (5 TiB / 10,000 = 524.3 MiB).
        #expect(
            try PartPlan.partSize(size: PartPlan.maxObjectBytes, requested: nil, maxParts: 10_000) == 525 * Self.mib)
    }

    @Test func aPartSizeAskedForIsKeptWhenItFits() throws {
        #expect(try PartPlan.partSize(size: 60 * Self.mib, requested: 8 * Self.mib, maxParts: 10_000) == 8 * Self.mib)
        #expect(throws: PartPlan.Problem.partSize) {
            try PartPlan.partSize(size: 60 * Self.mib, requested: 5 * Self.mib - 1, maxParts: 10_000)
        }
        #expect(throws: PartPlan.Problem.partSize) {
            try PartPlan.partSize(size: 60 * Self.mib, requested: PartRules.maxPartBytes + 1, maxParts: 10_000)
        }
        #expect(throws: PartPlan.Problem.tooManyParts(count: 12, maxParts: 10)) {
            try PartPlan.partSize(size: 60 * Self.mib, requested: 5 * Self.mib, maxParts: 10)
        }
    }

    @Test func sizesOutsideOneByteToFiveTiBAreRefused() {
        for size in [0, -1, PartPlan.maxObjectBytes + 1, Int64.min] {
            #expect(throws: PartPlan.Problem.size) {
                try PartPlan.partSize(size: size, requested: nil, maxParts: 10_000)
            }
        }
    }
}
