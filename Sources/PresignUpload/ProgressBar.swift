import Foundation

/// Draws upload progress on standard error: a redrawn bar on a terminal (bytes, rate, ETA), plain lines
/// at every 10 % otherwise. The rate counts only bytes sent by this run: with `firstReportIsBaseline`
/// (a multipart upload, whose first report comes before any part is sent) the first report's bytes,
/// the parts a resumed upload found done, are not counted.
final class ProgressBar: @unchecked Sendable {
    enum Style { case bar, lines, none }

    private let lock = NSLock()
    private let name: String
    private let style: Style
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var lastDecile = -1
    private var sent: Int64 = 0
    /// The bytes of the first report, which this run did not send (nil before it).
    private var baseline: Int64?
    /// Whether the first report's bytes were sent before this run (set before the upload starts).
    var firstReportIsBaseline = false
    private var total: Int64 = 0
    private var finished = false

    init(name: String, style: Style, total: Int64) {
        self.name = name
        self.style = style
        self.total = total
    }

    func update(_ p: (bytesSent: Int64, totalBytes: Int64)) {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        if baseline == nil { baseline = firstReportIsBaseline ? p.bytesSent : 0 }
        sent = max(sent, p.bytesSent)
        total = p.totalBytes
        switch style {
        case .none: return
        case .bar:
            let now = Date()
            guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
            lastDraw = now
            Self.write("\r\u{1B}[K" + line(now: now, bar: true))
        case .lines:
            let decile = total > 0 ? Int(sent * 10 / total) : 10
            guard decile > lastDecile else { return }
            lastDecile = decile
            Self.write(line(now: Date(), bar: false) + "\n")
        }
    }

    /// The final state (100 % when `ok`), then a new line.
    func finish(ok: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        finished = true
        if ok { sent = total }
        switch style {
        case .none: return
        case .bar: Self.write("\r\u{1B}[K" + line(now: Date(), bar: true) + "\n")
        case .lines:
            if ok && lastDecile < 10 { Self.write(line(now: Date(), bar: false) + "\n") }
        }
    }

    private func line(now: Date, bar: Bool) -> String {
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let fraction = total > 0 ? Double(sent) / Double(total) : 1
        let percent = Int((fraction * 100).rounded(.down))
        let rate = Double(sent - min(sent, baseline ?? 0)) / elapsed
        let eta = rate > 0 && sent < total ? Double(total - sent) / rate : 0
        let amounts = "\(Self.mib(sent))/\(Self.mib(total)) MiB  \(Self.mib(Int64(rate))) MiB/s  ETA \(Self.clock(eta))"
        let pct = String(repeating: " ", count: max(0, 3 - String(percent).count)) + "\(percent)%"
        if bar {
            let width = 24
            let filled = Int(fraction * Double(width))
            let body = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            return "\(name) [\(body)] \(pct)  \(amounts)"
        }
        return "\(name): \(pct)  \(amounts)"
    }

    static func mib(_ bytes: Int64) -> String {
        let v = Double(bytes) / 1_048_576
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        return s >= 3600 ? "\(s / 3600)h\(s % 3600 / 60)m" : "\(s / 60):\(String(format: "%02d", s % 60))"
    }

    static func write(_ s: String) {
        FileHandle.standardError.write(Data(s.utf8))
    }
}
