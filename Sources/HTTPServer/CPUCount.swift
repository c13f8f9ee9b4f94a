/// How many CPUs the process may really use, and what decided it: the default number of event loops.
///
/// The count is the smallest of the online CPUs, the CPUs in the process's affinity mask (`taskset`,
/// a cpuset) and its cgroup's CPU quota rounded up to whole CPUs, and at least 1. The source names the
/// limit that set it; on a tie the earlier of those three is named, so an unrestricted host reports
/// "online CPUs" and a quota only shows when it is below the CPUs the process may run on. A configured
/// count (greater than 0) overrides them all. Pure: `detect` (`CPUCount+System.swift`) gathers the inputs.
public struct CPUCount: Sendable, Equatable {
    /// What decided a count.
    public enum Source: String, Sendable, Equatable {
        /// `server.eventLoops` was set.
        case configured = "configured"
        /// The CPUs online (`sysconf(_SC_NPROCESSORS_ONLN)`), the fallback.
        case onlineCPUs = "online CPUs"
        /// The process's affinity mask (`sched_getaffinity`).
        case affinity = "affinity"
        /// The cgroup v2 CPU quota (`cpu.max`).
        case cgroupV2 = "cgroup v2 cpu.max"
        /// The cgroup v1 CFS quota (`cpu.cfs_quota_us` / `cpu.cfs_period_us`).
        case cgroupV1 = "cgroup v1 cfs quota"
    }

    /// The number of CPUs (at least 1).
    public let count: Int
    /// What decided it.
    public let source: Source

    /// A count of `count` decided by `source`.
    public init(count: Int, source: Source) {
        self.count = count
        self.source = source
    }

    /// The count for `configured` (0: use the CPUs the process may use), from the CPUs online and in the
    /// affinity mask (nil or below 1: unknown) and the cgroup's limit (nil: none).
    public static func decide(configured: Int, online: Int?, affinity: Int?, cgroup: CgroupCPULimit?) -> CPUCount {
        if configured > 0 { return CPUCount(count: configured, source: .configured) }
        var best: CPUCount?
        func consider(_ n: Int?, _ source: Source) {
            guard let n, n >= 1 else { return }
            if best == nil || n < best!.count { best = CPUCount(count: n, source: source) }
        }
        consider(online, .onlineCPUs)
        consider(affinity, .affinity)
        if let cgroup { consider(cgroup.cpus, cgroup.version == .v2 ? .cgroupV2 : .cgroupV1) }
        return best ?? CPUCount(count: 1, source: .onlineCPUs)
    }
}
