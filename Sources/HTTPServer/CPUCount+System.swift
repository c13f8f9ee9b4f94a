import CLinux
import System

#if canImport(Glibc)
    import Glibc
#endif

extension CPUCount {
    /// Where the cgroup filesystem is mounted on Linux.
    public static let defaultCgroupRoot = "/sys/fs/cgroup"

    /// The count for `configured` (0: detect) on this system: the cgroup limit is read under `cgroupRoot`
    /// for the cgroups named by `procSelfCgroup` (nil: the text of `/proc/self/cgroup`); `affinity` and
    /// `online` default to the calling thread's affinity mask and the CPUs online.
    public static func detect(
        configured: Int, cgroupRoot: String = defaultCgroupRoot, procSelfCgroup: String? = nil,
        affinity: Int? = affinityCPUs(), online: Int? = onlineCPUs()
    ) -> CPUCount {
        if configured > 0 { return CPUCount(count: configured, source: .configured) }
        let membership = procSelfCgroup ?? readControlFile("/proc/self/cgroup") ?? ""
        let limit = CgroupCPULimit.find(root: cgroupRoot, procSelfCgroup: membership, readFile: readControlFile)
        return decide(configured: 0, online: online, affinity: affinity, cgroup: limit)
    }

    /// The CPUs in the calling thread's affinity mask, or nil when it cannot be read.
    public static func affinityCPUs() -> Int? {
        let n = presignd_affinity_cpu_count()
        return n >= 1 ? Int(n) : nil
    }

    /// The CPUs online, or nil when the system does not say.
    public static func onlineCPUs() -> Int? {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n >= 1 ? Int(n) : nil
    }

    /// Largest control file read (`/proc/self/cgroup` lists a dozen short lines; `cpu.max` one).
    static let maxControlFileBytes = 65_536

    /// The text of a small control or `/proc` file, or nil when it is missing, unreadable, not UTF-8
    /// or larger than `maxControlFileBytes`.
    static func readControlFile(_ path: String) -> String? {
        guard let bytes = try? FileReader.readAll(atPath: path, limit: maxControlFileBytes) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
