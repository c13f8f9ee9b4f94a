import HTTPServer
import Testing

/// The pure parsers of the cgroup CPU limit. Formats from the kernel's
/// Documentation/admin-guide/cgroup-v2.rst ("cpu.max"), Documentation/scheduler/sched-bwc.rst (v1 CFS
/// bandwidth) and proc(5) ("/proc/pid/cgroup").
@Suite("Cgroup CPU limit parsing")
struct CgroupCPULimitTests {
    @Test(
        "cpu.max: no limit, quotas rounded up to whole CPUs, at least 1",
        arguments: [
            ("max 100000\n", nil),
            ("max 100000", nil),
            ("100000 100000\n", 1),
            ("150000 100000\n", 2),
            ("200000 100000\n", 2),
            ("250000 100000\n", 3),
            ("50000 100000\n", 1),
            ("1000 100000\n", 1),
            ("400000 50000\n", 8),
        ] as [(String, Int?)])
    func cpuMax(text: String, cpus: Int?) {
        #expect(CgroupCPULimit.cpus(cpuMax: text) == cpus)
    }

    @Test(
        "cpu.max: malformed text is no limit, never a crash",
        arguments: [
            "", "\n", "max", "150000", "max max", "abc 100000", "150000 abc", "150000 0", "0 100000",
            "-150000 100000", "+150000 100000", "1.5 100000", "150000 100000 7", "99999999999999999999999 100000",
            "150000 99999999999999999999999", "１５００００ 100000",
        ])
    func cpuMaxMalformed(text: String) {
        #expect(CgroupCPULimit.cpus(cpuMax: text) == nil)
    }

    @Test(
        "v1 CFS quota and period: -1 is no limit, quotas rounded up, malformed is no limit",
        arguments: [
            ("-1\n", "100000\n", nil),
            ("150000\n", "100000\n", 2),
            ("100000", "100000", 1),
            ("20000\n", "100000\n", 1),
            ("300000\n", "100000\n", 3),
            ("0\n", "100000\n", nil),
            ("-2\n", "100000\n", nil),
            ("", "100000\n", nil),
            ("150000\n", "", nil),
            ("150000\n", "0\n", nil),
            ("abc\n", "100000\n", nil),
            ("150000 1\n", "100000\n", nil),
        ] as [(String, String, Int?)])
    func cfsQuota(quota: String, period: String, cpus: Int?) {
        #expect(CgroupCPULimit.cpus(cfsQuota: quota, cfsPeriod: period) == cpus)
    }

    @Test("/proc/self/cgroup: the v2 line and the v1 hierarchy that holds cpu")
    func membership() {
        // cgroup v2 only (a unified host, or a container with a cgroup namespace).
        #expect(
            CgroupCPULimit.membership(procSelfCgroup: "0::/kubepods/pod1/c1\n")
                == .init(v2Path: "/kubepods/pod1/c1"))
        // A hybrid host (this layout is systemd's "hybrid" mode): cpu is in a v1 hierarchy of its own.
        let hybrid = """
            9:name=systemd:/
            8:pids:/
            4:memory:/a/b
            3:cpuset:/x
            2:cpuacct:/y
            1:cpu:/z
            0::/
            """
        #expect(
            CgroupCPULimit.membership(procSelfCgroup: hybrid)
                == .init(v2Path: "/", v1CPU: .init(controllers: "cpu", path: "/z")))
        // cpu mounted with cpuacct; cpuset and cpuacct alone are not cpu.
        #expect(
            CgroupCPULimit.membership(procSelfCgroup: "5:cpuset:/s\n3:cpuacct,cpu:/docker/abc\n")
                == .init(v1CPU: .init(controllers: "cpuacct,cpu", path: "/docker/abc")))
        // A path may hold a colon; the first two separate the fields.
        #expect(CgroupCPULimit.membership(procSelfCgroup: "0::/a:b\n") == .init(v2Path: "/a:b"))
        // Lines that do not fit are skipped.
        #expect(
            CgroupCPULimit.membership(procSelfCgroup: "garbage\n1:cpu\n0::relative\n\n:::\n0::/ok\n")
                == .init(v2Path: "/ok"))
        #expect(CgroupCPULimit.membership(procSelfCgroup: "") == .init())
    }

    @Test("directories: the cgroup and its ancestors under the root, deepest first; no escape with ..")
    func directories() {
        #expect(CgroupCPULimit.directories(root: "/r", path: "/a/b") == ["/r/a/b", "/r/a", "/r"])
        #expect(CgroupCPULimit.directories(root: "/r/", path: "/a") == ["/r/a", "/r/"])
        #expect(CgroupCPULimit.directories(root: "/r", path: "/") == ["/r"])
        #expect(CgroupCPULimit.directories(root: "/r", path: "//a/./b/") == ["/r/a/b", "/r/a", "/r"])
        #expect(CgroupCPULimit.directories(root: "/r", path: "/../etc") == ["/r"])
        #expect(CgroupCPULimit.directories(root: "/r", path: "/a/../../b") == ["/r"])
    }

    @Test("find: the tightest of the cgroup and its ancestors; v2 before v1 on a tie; a closure reads")
    func findWithClosure() {
        let files = [
            "/r/a/b/cpu.max": "400000 100000\n",
            "/r/a/cpu.max": "300000 100000\n",
            "/r/cpu/x/cpu.cfs_quota_us": "300000\n",
            "/r/cpu/x/cpu.cfs_period_us": "100000\n",
        ]
        let read: (String) -> String? = { files[$0] }
        #expect(
            CgroupCPULimit.find(root: "/r", procSelfCgroup: "0::/a/b\n", readFile: read)
                == CgroupCPULimit(cpus: 3, version: .v2))
        #expect(
            CgroupCPULimit.find(root: "/r", procSelfCgroup: "1:cpu:/x\n", readFile: read)
                == CgroupCPULimit(cpus: 3, version: .v1))
        #expect(
            CgroupCPULimit.find(root: "/r", procSelfCgroup: "1:cpu:/x\n0::/a/b\n", readFile: read)
                == CgroupCPULimit(cpus: 3, version: .v2))
        #expect(CgroupCPULimit.find(root: "/r", procSelfCgroup: "0::/elsewhere\n", readFile: read) == nil)
    }
}
