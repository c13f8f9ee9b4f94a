import Foundation
import PresignClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `presign-upload`: the command-line uploader (see `Options.help` and docs/client.md).
@main
struct PresignUpload {
    static func main() async {
        boundAllocator()
        let args = Array(CommandLine.arguments.dropFirst())
        if args.first == "get" { exit(await GetCommand.main(Array(args.dropFirst()))) }
        let options: Options
        do {
            options = try Options.parse(args)
        } catch let e as Options.UsageError {
            fail("presign-upload: \(e.message) (see --help)")
            exit(2)
        } catch {
            exit(2)
        }
        if options.help {
            print(Options.help)
            exit(0)
        }
        Interruption.install()
        exit(await run(options))
    }

    /// glibc only: allocations of 1 MiB and more are always mapped, and unmapped when freed. By default
    /// glibc raises that threshold to the size of the first large block freed (up to 32 MiB), after which
    /// the part-sized copies FoundationNetworking makes come from its arenas and their freed space is kept:
    /// peak RSS then grew with the number of parts (132 MiB for 192 MiB in 16 MiB parts at concurrency 4,
    /// 116 MiB with this; docs/client.md). `mallopt` is looked up at run time (malloc.h is not in the
    /// Glibc module); without it nothing changes.
    static func boundAllocator() {
        #if canImport(Glibc)
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
            if let symbol = dlsym(nil, "mallopt") {
                _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, 1 << 20)
            }
        #endif
    }

    static func fail(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

    /// The exit code for an error: 3 network, 4 server refusal, 5 storage refusal, 1 anything else.
    static func exitCode(_ e: PresignClientError) -> Int32 {
        switch e {
        case .network: return 3
        case .server, .uploadGone: return 4
        case .storage: return 5
        case .cancelled, .file, .invalidResponse: return 1
        }
    }

    static func run(_ o: Options) async -> Int32 {
        var token = o.token
        if let f = o.tokenFile {
            guard let text = try? String(contentsOfFile: (f as NSString).expandingTildeInPath, encoding: .utf8) else {
                fail("presign-upload: cannot read the token file \(f)")
                return 2
            }
            token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var headers = o.headers
        if let u = o.userId { headers["X-User-Id"] = u }
        let client = PresignClient(
            configuration: .init(serverURL: o.server!, bearerToken: token, headers: headers))
        let style: ProgressBar.Style
        switch o.progress {
        case .none: style = .none
        case .bar: style = .bar
        case .lines: style = .lines
        case .auto: style = isatty(STDERR_FILENO) == 1 ? .bar : .lines
        }
        for path in o.files {
            let code = await uploadOne(path, client: client, options: o, style: style)
            if code != 0 { return code }
        }
        return 0
    }

    static func uploadOne(_ path: String, client: PresignClient, options o: Options, style: ProgressBar.Style) async
        -> Int32
    {
        let file = URL(fileURLWithPath: path)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDir), !isDir.boolValue,
            let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        else {
            fail("presign-upload: \(path): no such file")
            return 1
        }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let started = Date()
        let bar = ProgressBar(name: file.lastPathComponent, style: style, total: size)
        let progress: ProgressHandler = { p in bar.update((p.bytesSent, p.totalBytes)) }
        let contentType = o.contentType(for: path)
        var out: [String: Any] = ["file": path, "bytes": size]
        do {
            if o.backgroundStyle && size > 0 {
                // The native API: a state of its own beside the Companion routes' one.
                let stateFile = try stateFile(for: file, options: o).deletingPathExtension()
                    .appendingPathExtension("uploads.json")
                let uploader = BackgroundUploader(
                    client: client, type: o.type, partSize: o.partSizeGiven ? Int64(o.partSizeMiB) * 1_048_576 : nil)
                Interruption.uploading(path: path, stateFile: stateFile)
                defer { Interruption.finished() }
                let r = try await uploader.upload(
                    fileAt: file, contentType: contentType, stateFile: stateFile,
                    sender: ForegroundSender(client: client, concurrency: o.concurrency))
                bar.finish(ok: true)
                out["key"] = r.record.key
                out["uploadId"] = r.uploadId
                out["recordId"] = r.record.id
                out["sha256"] = r.record.sha256 ?? NSNull()
                out["multipart"] = true
                out["backgroundStyle"] = true
                out["partsUploaded"] = r.partsSent
                out["partsResumed"] = r.partsResumed
                out["restarts"] = r.restarted
                out["seconds"] = (Date().timeIntervalSince(started) * 1000).rounded() / 1000
                if o.json {
                    printJSON(out)
                } else {
                    print("\(path): uploaded \(size) bytes as \(r.record.key) (record \(r.record.id))")
                }
                return 0
            }
            var inParts = size > o.thresholdMiB * 1_048_576
            // --resume of an interrupted upload of this file continues it in parts, whatever the threshold.
            if !inParts, o.resume, let waiting = MultipartState.load(try stateFile(for: file, options: o)),
                waiting.isOf(file: file, size: size, modified: MultipartUploader.modificationTime(file))
            {
                inParts = true
            }
            if inParts {
                var metadata = o.metadata
                if let t = o.type { metadata["uploadType"] = t }
                let stateFile = try stateFile(for: file, options: o)
                let options = MultipartOptions(
                    threshold: o.thresholdMiB * 1_048_576, partSize: o.partSizeMiB * 1_048_576,
                    concurrency: o.concurrency, retry: RetryPolicy(maxAttempts: o.maxAttempts), checksums: o.checksums)
                // Whatever the part options now: the parts sent belong to the file as long as it is unchanged.
                if !o.resume && !o.restart, let old = MultipartState.load(stateFile),
                    old.isOf(file: file, size: size, modified: MultipartUploader.modificationTime(file))
                {
                    // Never throw the sent parts away unasked: the user chooses.
                    bar.finish(ok: false)
                    fail(
                        "presign-upload: \(path): an interrupted upload of this file is waiting (\(old.etags.count) "
                            + "parts sent, state in \(stateFile.path)): run again with --resume to continue it, or "
                            + "with --restart to abort it and send the file again")
                    if o.json {
                        out["error"] = "an interrupted upload is waiting: use --resume or --restart"
                        out["exitCode"] = 2
                        printJSON(out)
                    }
                    return 2
                }
                let uploader = MultipartUploader(client: client, options: options)
                bar.firstReportIsBaseline = true
                do {
                    Interruption.uploading(path: path, stateFile: stateFile)
                    defer { Interruption.finished() }
                    let r = try await uploader.upload(
                        fileAt: file, contentType: contentType, metadata: metadata, stateFile: stateFile,
                        resume: o.resume, progress: progress)
                    bar.finish(ok: true)
                    out["key"] = r.key
                    out["uploadId"] = r.uploadId
                    out["multipart"] = true
                    out["parts"] = r.partCount
                    out["partsUploaded"] = r.partsUploaded
                    out["partsResumed"] = r.partsResumed
                    out["restarts"] = r.restarts
                    out["retries"] = r.retries
                    out["recordId"] = r.record?.id ?? NSNull()
                    out["sha256"] = r.record?.sha256 ?? NSNull()
                    if r.record?.deduplicated == true { out["deduplicated"] = true }
                    out["partSize"] = r.partSize
                    let asked = PartPlan(fileSize: size, partSize: options.partSize).partSize
                    if o.resume, r.abortedUploadId == nil, r.partSize != asked {
                        fail(
                            "presign-upload: note: \(path): resumed in parts of \(mib(r.partSize)) MiB, the interrupted "
                                + "upload's (not \(mib(asked)) MiB: the parts already sent were cut at that size)")
                    }
                    if let aborted = r.abortedUploadId {
                        out["abortedUploadId"] = aborted
                        if case .fileChanged(let change)? = r.abortReason {
                            out["abortReason"] = change
                            fail(
                                "presign-upload: note: \(path) changed since its interrupted upload (\(change)); "
                                    + "that upload (\(aborted)) was aborted and the file sent again")
                        }
                    }
                } catch let e as PresignClientError
                    where e.isMultipartNotServed && !o.thresholdGiven
                    && size <= 5 * 1_073_741_824
                {
                    fail(
                        "presign-upload: note: \(path): the server does not serve the multipart routes "
                            + "(uppy.enabled is off there); sending it in one PUT instead")
                    bar.firstReportIsBaseline = false
                    inParts = false
                }
            }
            if !inParts {
                // The size and the digests of the bytes, read from the file before the URL is asked for: the
                // server signs what its storage checks and proves the rest before it records the upload.
                let declared = try Declaration.of(file: file, checksums: o.checksums)
                let ticket: UploadTicket
                if o.form == "get" {
                    ticket = try await client.uploadURL(
                        type: o.type!, ext: (path as NSString).pathExtension.lowercased(), declaring: declared)
                } else {
                    ticket = try await client.uploadURL(
                        contentType: contentType, type: o.type, size: declared.size,
                        checksumSHA256: declared.checksumSHA256, contentMD5: declared.contentMD5)
                }
                _ = try await client.upload(fileAt: file, with: ticket, contentType: contentType, progress: progress)
                bar.finish(ok: true)
                let record = try await client.confirm(
                    imageKey: ticket.confirmKey, metadata: o.metadata.isEmpty ? nil : o.metadata)
                out["key"] = record.key
                out["recordId"] = record.id
                out["sha256"] = record.sha256 ?? NSNull()
                if record.deduplicated { out["deduplicated"] = true }
                out["multipart"] = false
            }
            out["seconds"] = (Date().timeIntervalSince(started) * 1000).rounded() / 1000
            if o.json {
                printJSON(out)
            } else {
                let digest = (out["sha256"] as? String).map { ", sha256 \($0)" } ?? ""
                let again = out["deduplicated"] != nil ? ", the same bytes as this earlier record" : ""
                print("\(path): uploaded \(size) bytes as \(out["key"]!) (record \(out["recordId"]!)\(digest)\(again))")
            }
            return 0
        } catch {
            bar.finish(ok: false)
            let e = error as? PresignClientError ?? .file(String(describing: error))
            let code = exitCode(e)
            fail("presign-upload: \(path): \(e)")
            if o.json {
                out["error"] = e.description
                out["exitCode"] = Int(code)
                if let s = e.status { out["status"] = s }
                if let c = e.serverCode { out["serverCode"] = c }
                if !e.fieldErrors.isEmpty { out["fieldErrors"] = e.fieldErrors }
                if let c = e.storageCode { out["storageCode"] = c }
                printJSON(out)
            }
            return code
        }
    }

    /// `<state-dir>/<name>-<hash of the absolute path>.json`.
    static func stateFile(for file: URL, options o: Options) throws -> URL {
        let dir = URL(fileURLWithPath: o.stateDir ?? ".presign-upload")
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw PresignClientError.file("cannot create the state directory \(dir.path)")
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in file.standardizedFileURL.path.utf8 {
            hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3
        }
        let safe = String(file.lastPathComponent.map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "_" })
        return dir.appendingPathComponent("\(safe)-\(String(hash, radix: 16)).json")
    }

    /// `bytes` in MiB, as the options give part sizes (one decimal when not whole).
    static func mib(_ bytes: Int) -> String {
        bytes % 1_048_576 == 0 ? "\(bytes / 1_048_576)" : String(format: "%.1f", Double(bytes) / 1_048_576)
    }

    static func printJSON(_ object: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
