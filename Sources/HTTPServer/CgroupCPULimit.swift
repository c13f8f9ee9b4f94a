/// The CPU bandwidth limit of the process's cgroup, rounded up to whole CPUs: cgroup v2 `cpu.max` or
/// cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`. Pure: files are read through a closure.
///
/// The process's cgroup comes from the text of `/proc/self/cgroup` (v2: the `0::/path` line; v1: the
/// line whose controllers include `cpu`), joined to the cgroup filesystem root (v1: its `cpu`
/// hierarchy's directory). The limit file is looked for in that cgroup and in each of its ancestors up
/// to the root, and the tightest limit found applies: a parent's quota bounds its children, and inside
/// a container the process's cgroup is usually the root of the namespace (or, without a cgroup
/// namespace, a path that does not exist under the container's mount, which then falls back to it).
public struct CgroupCPULimit: Sendable, Equatable {
    /// Which cgroup interface set the limit.
    public enum Version: Sendable, Equatable {
        /// cgroup v2, `cpu.max`.
        case v2
        /// cgroup v1, the CFS quota and period of the `cpu` controller.
        case v1
    }

    /// The process's cgroups as `/proc/self/cgroup` names them.
    public struct Membership: Sendable, Equatable {
        /// A cgroup v1 hierarchy that holds the `cpu` controller, and the process's path in it.
        public struct V1Hierarchy: Sendable, Equatable {
            /// The hierarchy's controllers as listed (e.g. `cpu,cpuacct`), also the usual name of its
            /// directory under the cgroup root.
            public var controllers: String
            /// The process's cgroup path in the hierarchy.
            public var path: String

            /// The hierarchy of `controllers`, with the process at `path`.
            public init(controllers: String, path: String) {
                self.controllers = controllers
                self.path = path
            }
        }

        /// The cgroup v2 path (the `0::` line), if any.
        public var v2Path: String?
        /// The v1 hierarchy of the `cpu` controller, if any.
        public var v1CPU: V1Hierarchy?

        /// A membership with the given paths.
        public init(v2Path: String? = nil, v1CPU: V1Hierarchy? = nil) {
            self.v2Path = v2Path
            self.v1CPU = v1CPU
        }
    }

    /// Whole CPUs the quota allows (quota / period rounded up, at least 1).
    public let cpus: Int
    /// The interface that set it.
    public let version: Version

    /// A limit of `cpus` set through `version`.
    public init(cpus: Int, version: Version) {
        self.cpus = cpus
        self.version = version
    }

    /// The tightest limit on the cgroup named by `procSelfCgroup` under `root`, reading files with
    /// `readFile` (nil for a file that is missing or unreadable); nil when nothing limits it. A v2 limit
    /// wins a tie with a v1 one.
    public static func find(root: String, procSelfCgroup: String, readFile: (String) -> String?) -> CgroupCPULimit? {
        let membership = membership(procSelfCgroup: procSelfCgroup)
        var best: CgroupCPULimit?
        func consider(_ cpus: Int?, _ version: Version) {
            guard let cpus else { return }
            if best == nil || cpus < best!.cpus { best = CgroupCPULimit(cpus: cpus, version: version) }
        }
        for dir in directories(root: root, path: membership.v2Path ?? "/") {
            consider(readFile(dir + "/cpu.max").flatMap { cpus(cpuMax: $0) }, .v2)
        }
        let v1 = membership.v1CPU ?? Membership.V1Hierarchy(controllers: "cpu", path: "/")
        var mounts = [join(root, v1.controllers)]
        if v1.controllers != "cpu" { mounts.append(join(root, "cpu")) }
        for mount in mounts {
            for dir in directories(root: mount, path: v1.path) {
                guard let quota = readFile(dir + "/cpu.cfs_quota_us") else { continue }
                consider(readFile(dir + "/cpu.cfs_period_us").flatMap { cpus(cfsQuota: quota, cfsPeriod: $0) }, .v1)
            }
        }
        return best
    }

    /// The cgroup v2 path and the v1 `cpu` hierarchy of `/proc/self/cgroup`'s text
    /// (`hierarchy-ID:controller-list:path` per line); lines that do not fit are skipped.
    public static func membership(procSelfCgroup text: String) -> Membership {
        var result = Membership()
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[2].hasPrefix("/") else { continue }
            let path = String(fields[2])
            if fields[0] == "0" && fields[1].isEmpty {
                if result.v2Path == nil { result.v2Path = path }
            } else if fields[1].split(separator: ",").contains("cpu") {
                if result.v1CPU == nil { result.v1CPU = .init(controllers: String(fields[1]), path: path) }
            }
        }
        return result
    }

    /// The directories of cgroup `path` and of each of its ancestors under `root`, deepest first,
    /// ending with `root` itself. A path with a `..` component yields `root` alone.
    public static func directories(root: String, path: String) -> [String] {
        let parts = path.split(separator: "/").filter { $0 != "." }
        guard !parts.contains("..") else { return [root] }
        var result: [String] = []
        var n = parts.count
        while n > 0 {
            result.append(join(root, parts[..<n].joined(separator: "/")))
            n -= 1
        }
        result.append(root)
        return result
    }

    /// Whole CPUs allowed by a cgroup v2 `cpu.max` text (`max PERIOD` or `QUOTA PERIOD`, microseconds);
    /// nil for no limit or for text that is not of that form.
    public static func cpus(cpuMax text: String) -> Int? {
        let fields = words(text)
        guard fields.count == 2, let period = positive(fields[1]) else { return nil }
        if fields[0] == "max" { return nil }
        guard let quota = positive(fields[0]) else { return nil }
        return cpus(quota: quota, period: period)
    }

    /// Whole CPUs allowed by cgroup v1 `cpu.cfs_quota_us` and `cpu.cfs_period_us` texts; nil for no limit
    /// (a quota of -1) or for text that is not a number.
    public static func cpus(cfsQuota: String, cfsPeriod: String) -> Int? {
        let quota = words(cfsQuota)
        let period = words(cfsPeriod)
        guard quota.count == 1, period.count == 1, let q = positive(quota[0]), let p = positive(period[0]) else {
            return nil
        }
        return cpus(quota: q, period: p)
    }

    /// `quota / period` rounded up, at least 1 (both positive).
    private static func cpus(quota: Int, period: Int) -> Int {
        max(1, quota / period + (quota % period == 0 ? 0 : 1))
    }

    /// A positive decimal integer that fits an `Int`, else nil.
    private static func positive(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let n = Int(text), n > 0
        else { return nil }
        return n
    }

    /// The whitespace-separated words of a small control file.
    private static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
    }

    private static func join(_ root: String, _ relative: String) -> String {
        root.hasSuffix("/") ? root + relative : root + "/" + relative
    }
}
