import Foundation
import HTTPServer
import Testing

/// The default number of event loops: affinity, cgroup v2 and v1 quotas, read from fake cgroup roots
/// in a temporary directory.
@Suite("CPU count")
struct CPUCountTests {
    /// A cgroup filesystem root in a temporary directory, removed when the value goes away.
    final class FakeCgroupRoot {
        let path: String

        init() throws {
            path =
                FileManager.default.temporaryDirectory.appendingPathComponent(
                    "presignd-cgroup-\(UUID().uuidString)"
                ).path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        /// Writes `text` to `relative` under the root, creating its directories.
        func write(_ relative: String, _ text: String) throws {
            try write(relative, Data(text.utf8))
        }

        /// Writes `bytes` to `relative` under the root, creating its directories.
        func write(_ relative: String, _ bytes: Data) throws {
            let url = URL(fileURLWithPath: path).appendingPathComponent(relative)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: url)
        }

        /// The count on a host of `online` CPUs with `affinity` of them in the mask, this root and
        /// `procSelfCgroup`.
        func detect(_ procSelfCgroup: String, affinity: Int? = 8, online: Int? = 8) -> CPUCount {
            CPUCount.detect(
                configured: 0, cgroupRoot: path, procSelfCgroup: procSelfCgroup, affinity: affinity, online: online)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test(
        "decide: the smallest of online, affinity and quota; a tie names the earlier; at least 1",
        arguments: [
            (3, 8, 8, nil, CPUCount(count: 3, source: .configured)),
            (3, 8, 1, CgroupCPULimit(cpus: 1, version: .v2), CPUCount(count: 3, source: .configured)),
            (0, 8, 8, nil, CPUCount(count: 8, source: .onlineCPUs)),
            (0, 8, 1, nil, CPUCount(count: 1, source: .affinity)),
            (0, 8, 8, CgroupCPULimit(cpus: 2, version: .v2), CPUCount(count: 2, source: .cgroupV2)),
            (0, 8, 8, CgroupCPULimit(cpus: 2, version: .v1), CPUCount(count: 2, source: .cgroupV1)),
            (0, 8, 2, CgroupCPULimit(cpus: 4, version: .v2), CPUCount(count: 2, source: .affinity)),
            (0, 8, 4, CgroupCPULimit(cpus: 2, version: .v2), CPUCount(count: 2, source: .cgroupV2)),
            (0, 8, 2, CgroupCPULimit(cpus: 2, version: .v2), CPUCount(count: 2, source: .affinity)),
            (0, 8, 8, CgroupCPULimit(cpus: 16, version: .v1), CPUCount(count: 8, source: .onlineCPUs)),
            (0, nil, 2, nil, CPUCount(count: 2, source: .affinity)),
            (0, 4, nil, nil, CPUCount(count: 4, source: .onlineCPUs)),
            (0, 4, 0, nil, CPUCount(count: 4, source: .onlineCPUs)),
            (0, nil, nil, nil, CPUCount(count: 1, source: .onlineCPUs)),
            (-1, nil, nil, CgroupCPULimit(cpus: 3, version: .v2), CPUCount(count: 3, source: .cgroupV2)),
        ] as [(Int, Int?, Int?, CgroupCPULimit?, CPUCount)])
    func decide(configured: Int, online: Int?, affinity: Int?, cgroup: CgroupCPULimit?, expected: CPUCount) {
        #expect(CPUCount.decide(configured: configured, online: online, affinity: affinity, cgroup: cgroup) == expected)
    }

    @Test("the sources' names as logged")
    func sourceNames() {
        #expect(
            [CPUCount.Source.configured, .onlineCPUs, .affinity, .cgroupV2, .cgroupV1].map(\.rawValue) == [
                "configured", "online CPUs", "affinity", "cgroup v2 cpu.max", "cgroup v1 cfs quota",
            ])
    }

    @Test("cgroup v2: max is no limit; 1.5 CPUs is 2; a quota below one CPU is 1")
    func v2Root() throws {
        let root = try FakeCgroupRoot()
        try root.write("cpu.max", "max 100000\n")
        #expect(root.detect("0::/\n") == CPUCount(count: 8, source: .onlineCPUs))
        try root.write("cpu.max", "150000 100000\n")
        #expect(root.detect("0::/\n") == CPUCount(count: 2, source: .cgroupV2))
        try root.write("cpu.max", "20000 100000\n")
        #expect(root.detect("0::/\n") == CPUCount(count: 1, source: .cgroupV2))
    }

    @Test("cgroup v2: the process's nested cgroup from /proc/self/cgroup, and a tighter parent")
    func v2Nested() throws {
        let root = try FakeCgroupRoot()
        let membership = "0::/kubepods.slice/pod1/c1\n"
        try root.write("kubepods.slice/pod1/c1/cpu.max", "300000 100000\n")
        try root.write("other/cpu.max", "100000 100000\n")
        #expect(root.detect(membership) == CPUCount(count: 3, source: .cgroupV2))
        try root.write("kubepods.slice/cpu.max", "200000 100000\n")
        #expect(root.detect(membership) == CPUCount(count: 2, source: .cgroupV2))
        // The cgroup is below the mount root's own limit too, and the looser child does not widen it.
        try root.write("cpu.max", "100000 100000\n")
        #expect(root.detect(membership) == CPUCount(count: 1, source: .cgroupV2))
    }

    @Test("cgroup v2: a path that is not under the mount (no cgroup namespace) falls back to the root")
    func v2FallbackToRoot() throws {
        let root = try FakeCgroupRoot()
        try root.write("cpu.max", "200000 100000\n")
        #expect(root.detect("0::/system.slice/docker-abc.scope\n") == CPUCount(count: 2, source: .cgroupV2))
    }

    @Test("missing files, or no /proc/self/cgroup text at all: no cgroup limit")
    func missing() throws {
        let root = try FakeCgroupRoot()
        #expect(root.detect("0::/a/b\n", affinity: 3) == CPUCount(count: 3, source: .affinity))
        #expect(root.detect("", affinity: 3) == CPUCount(count: 3, source: .affinity))
        let gone = CPUCount.detect(
            configured: 0, cgroupRoot: root.path + "/does-not-exist", procSelfCgroup: "0::/\n", affinity: 2, online: 4)
        #expect(gone == CPUCount(count: 2, source: .affinity))
    }

    @Test("cgroup v1: quota -1 is no limit; 150000/100000 is 2; a missing period is ignored")
    func v1() throws {
        let root = try FakeCgroupRoot()
        let membership = "4:memory:/m\n3:cpu,cpuacct:/\n2:cpuset:/\n"
        try root.write("cpu,cpuacct/cpu.cfs_period_us", "100000\n")
        try root.write("cpu,cpuacct/cpu.cfs_quota_us", "-1\n")
        #expect(root.detect(membership) == CPUCount(count: 8, source: .onlineCPUs))
        try root.write("cpu,cpuacct/cpu.cfs_quota_us", "150000\n")
        #expect(root.detect(membership) == CPUCount(count: 2, source: .cgroupV1))

        let noPeriod = try FakeCgroupRoot()
        try noPeriod.write("cpu,cpuacct/cpu.cfs_quota_us", "150000\n")
        #expect(noPeriod.detect(membership) == CPUCount(count: 8, source: .onlineCPUs))
        #expect(try FakeCgroupRoot().detect(membership) == CPUCount(count: 8, source: .onlineCPUs))
    }

    @Test("cgroup v1: the nested path in the cpu hierarchy, found under root/cpu too")
    func v1Nested() throws {
        let root = try FakeCgroupRoot()
        try root.write("cpu/docker/abc/cpu.cfs_quota_us", "250000\n")
        try root.write("cpu/docker/abc/cpu.cfs_period_us", "100000\n")
        #expect(root.detect("1:cpu:/docker/abc\n") == CPUCount(count: 3, source: .cgroupV1))
        // Listed with cpuacct, but mounted (or linked) as root/cpu.
        #expect(root.detect("1:cpuacct,cpu:/docker/abc\n") == CPUCount(count: 3, source: .cgroupV1))
        // The hybrid layout: a v2 line without cpu.max, cpu in v1.
        #expect(root.detect("1:cpu:/docker/abc\n0::/docker/abc\n") == CPUCount(count: 3, source: .cgroupV1))
    }

    @Test("affinity smaller than the quota decides, and the reverse")
    func affinityAgainstQuota() throws {
        let root = try FakeCgroupRoot()
        try root.write("cpu.max", "400000 100000\n")
        #expect(root.detect("0::/\n", affinity: 2) == CPUCount(count: 2, source: .affinity))
        try root.write("cpu.max", "200000 100000\n")
        #expect(root.detect("0::/\n", affinity: 4) == CPUCount(count: 2, source: .cgroupV2))
    }

    @Test("malformed, binary, oversized or unreadable files are ignored and the next source decides")
    func malformed() throws {
        let root = try FakeCgroupRoot()
        for text in ["garbage\n", "", "150000\n", "150000 0\n", "-1 100000\n", "max\n", "1e6 100000\n"] {
            try root.write("cpu.max", text)
            #expect(root.detect("0::/\n", affinity: 3) == CPUCount(count: 3, source: .affinity), "cpu.max \(text)")
        }
        try root.write("cpu.max", Data([0xFF, 0xFE, 0x31, 0x20, 0x31]))
        #expect(root.detect("0::/\n", affinity: 3) == CPUCount(count: 3, source: .affinity))
        try root.write("cpu.max", String(repeating: "1", count: 100_000) + " 100000\n")
        #expect(root.detect("0::/\n", affinity: 3) == CPUCount(count: 3, source: .affinity))
        // A directory where the file should be.
        try FileManager.default.removeItem(atPath: root.path + "/cpu.max")
        try FileManager.default.createDirectory(atPath: root.path + "/cpu.max", withIntermediateDirectories: false)
        #expect(root.detect("0::/\n", affinity: 3) == CPUCount(count: 3, source: .affinity))

        let v1 = try FakeCgroupRoot()
        try v1.write("cpu/cpu.cfs_quota_us", "lots\n")
        try v1.write("cpu/cpu.cfs_period_us", "100000\n")
        #expect(v1.detect("1:cpu:/\n", affinity: 3) == CPUCount(count: 3, source: .affinity))
        // A malformed nested file does not hide the ancestor's valid one.
        try v1.write("cpu/a/cpu.cfs_quota_us", "x\n")
        try v1.write("cpu/cpu.cfs_quota_us", "100000\n")
        #expect(v1.detect("1:cpu:/a\n", affinity: 3) == CPUCount(count: 1, source: .cgroupV1))
        // Malformed /proc/self/cgroup text.
        #expect(root.detect("\u{0}\u{1}::::\n::\n0:\n", affinity: 3) == CPUCount(count: 3, source: .affinity))
    }

    @Test("a .. in /proc/self/cgroup's path never reads outside the cgroup root")
    func noEscape() throws {
        let parent = try FakeCgroupRoot()
        try parent.write("outside/cpu.max", "100000 100000\n")
        try FileManager.default.createDirectory(atPath: parent.path + "/root", withIntermediateDirectories: false)
        let count = CPUCount.detect(
            configured: 0, cgroupRoot: parent.path + "/root", procSelfCgroup: "0::/../outside\n", affinity: 3,
            online: 8)
        #expect(count == CPUCount(count: 3, source: .affinity))
    }

    @Test("a configured count wins without reading anything")
    func configured() throws {
        let root = try FakeCgroupRoot()
        try root.write("cpu.max", "100000 100000\n")
        #expect(
            CPUCount.detect(configured: 5, cgroupRoot: root.path, procSelfCgroup: "0::/\n", affinity: 1, online: 1)
                == CPUCount(count: 5, source: .configured))
    }

    @Test("without the text, /proc/self/cgroup itself is read (its path falls back to the fake root)")
    func readsProcSelfCgroup() throws {
        let root = try FakeCgroupRoot()
        try root.write("cpu.max", "100000 100000\n")
        try root.write("cpu/cpu.cfs_quota_us", "100000\n")
        try root.write("cpu/cpu.cfs_period_us", "100000\n")
        let count = CPUCount.detect(configured: 0, cgroupRoot: root.path, affinity: 2, online: 2)
        #expect(count.count == 1)
        #expect(count.source == .cgroupV2 || count.source == .cgroupV1)
    }

    @Test("the affinity count is the calling thread's Cpus_allowed_list (sched_getaffinity, CPU_COUNT)")
    func affinityFromTheSystem() throws {
        let status = try String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") })
        var expected = 0
        for range in line.dropFirst("Cpus_allowed_list:".count).split(separator: ",") {
            let ends = range.split(separator: "-").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            expected += ends.count == 2 ? ends[1] - ends[0] + 1 : 1
        }
        #expect(CPUCount.affinityCPUs() == expected)
        let online = try #require(CPUCount.onlineCPUs())
        #expect(expected <= online)
        let live = CPUCount.detect(configured: 0)
        #expect(live.count >= 1 && live.count <= expected)
    }
}
