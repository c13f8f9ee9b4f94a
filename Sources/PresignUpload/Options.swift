import Foundation

/// The command line, parsed. Pure: no I/O but reading a token file.
struct Options: Equatable {
    var server: URL?
    var token: String?
    var tokenFile: String?
    var type: String?
    var form = "post"
    var contentType: String?
    var userId: String?
    var headers: [String: String] = [:]
    var metadata: [String: String] = [:]
    var json = false
    var resume = false
    /// `--restart`: abort the interrupted upload a state file holds and start over.
    var restart = false
    var stateDir: String?
    var partSizeMiB = 8
    /// Whether `--part-size` was given (`--background-style` lets the server choose otherwise).
    var partSizeGiven = false
    /// `--background-style`: the native `/uploads` API (every part URL up front, the server's word on
    /// resume, completion by the server if the client goes), as a phone's background session uses it.
    var backgroundStyle = false
    var concurrency = 4
    var thresholdMiB: Int64 = Options.defaultThresholdMiB
    /// Whether `--multipart-threshold` was given (else a server without the multipart routes gets the
    /// file in one PUT instead).
    var thresholdGiven = false
    var maxAttempts = 5
    /// Whether the file's SHA-256 and MD5 are declared (`--no-checksums`: its size alone).
    var checksums = true
    var progress: ProgressMode = .auto
    var files: [String] = []
    var help = false

    enum ProgressMode: String, Equatable { case auto, bar, lines, none }

    /// Files larger than this many MiB go in parts: low enough that an interrupted upload of a few tens
    /// of MiB resumes with `--resume` instead of being sent again whole.
    static let defaultThresholdMiB: Int64 = 16

    struct UsageError: Error, Equatable { var message: String }

    static func parse(_ args: [String]) throws -> Options {
        var o = Options()
        var i = 0
        func value(_ name: String) throws -> String {
            i += 1
            guard i < args.count else { throw UsageError(message: "\(name) needs a value") }
            return args[i]
        }
        func int(_ name: String, min: Int) throws -> Int {
            let v = try value(name)
            guard let n = Int(v), n >= min else { throw UsageError(message: "\(name): \(v) is not a number ≥ \(min)") }
            return n
        }
        var onlyFiles = false
        while i < args.count {
            let a = args[i]
            if onlyFiles || !a.hasPrefix("-") || a == "-" {
                o.files.append(a)
                i += 1
                continue
            }
            switch a {
            case "--": onlyFiles = true
            case "-h", "--help": o.help = true
            case "--server":
                let v = try value(a)
                guard let u = URL(string: v), let scheme = u.scheme, ["http", "https"].contains(scheme), u.host != nil
                else { throw UsageError(message: "--server: \(v) is not an http(s) URL") }
                o.server = u
            case "--token": o.token = try value(a)
            case "--token-file": o.tokenFile = try value(a)
            case "--type": o.type = try value(a)
            case "--form":
                let v = try value(a)
                guard v == "get" || v == "post" else { throw UsageError(message: "--form is get or post") }
                o.form = v
            case "--content-type": o.contentType = try value(a)
            case "--user-id": o.userId = try value(a)
            case "--header", "-H":
                let v = try value(a)
                guard let colon = v.firstIndex(of: ":"), colon != v.startIndex else {
                    throw UsageError(message: "--header wants 'Name: value'")
                }
                o.headers[String(v[..<colon])] = v[v.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            case "--meta":
                let v = try value(a)
                guard let eq = v.firstIndex(of: "="), eq != v.startIndex else {
                    throw UsageError(message: "--meta wants key=value")
                }
                o.metadata[String(v[..<eq])] = String(v[v.index(after: eq)...])
            case "--json": o.json = true
            case "--resume": o.resume = true
            case "--restart": o.restart = true
            case "--state-dir": o.stateDir = try value(a)
            case "--part-size":
                o.partSizeMiB = try int(a, min: 5)
                o.partSizeGiven = true
            case "--background-style": o.backgroundStyle = true
            case "--concurrency": o.concurrency = try int(a, min: 1)
            case "--multipart-threshold":
                o.thresholdMiB = Int64(try int(a, min: 0))
                o.thresholdGiven = true
            case "--max-attempts": o.maxAttempts = try int(a, min: 1)
            case "--no-checksums": o.checksums = false
            case "--progress":
                let v = try value(a)
                guard let m = ProgressMode(rawValue: v) else {
                    throw UsageError(message: "--progress is auto, bar, lines or none")
                }
                o.progress = m
            case "--no-progress": o.progress = .none
            default: throw UsageError(message: "unknown option \(a)")
            }
            i += 1
        }
        if o.help { return o }
        guard o.server != nil else { throw UsageError(message: "--server URL is required") }
        guard !o.files.isEmpty else { throw UsageError(message: "no FILE given") }
        if o.token != nil && o.tokenFile != nil {
            throw UsageError(message: "--token and --token-file exclude each other")
        }
        if o.form == "get" && o.type == nil { throw UsageError(message: "--form get needs --type (e.g. PROFILE)") }
        if o.resume && o.restart { throw UsageError(message: "--resume and --restart exclude each other") }
        return o
    }

    /// The content type for a file: `--content-type`, else from its extension.
    func contentType(for path: String) -> String {
        if let contentType { return contentType }
        switch (path as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "heic": return "image/heic"
        case "webp": return "image/webp"
        case "gif": return "image/gif"
        case "mp4": return "video/mp4"
        case "mov": return "video/quicktime"
        default: return "application/octet-stream"
        }
    }

    static let help = """
        presign-upload: upload files through a presignd server (presigned PUT URLs, multipart for large files)

        Usage: presign-upload --server URL [--token TOKEN | --token-file F] [--type PROFILE] [options] FILE...
               presign-upload get --server URL [...] ID -o FILE     (a record's bytes: get --help; a file
                                                                    named get: ./get)

        Files up to --multipart-threshold go in one PUT (POST /presigned-url, or GET with --form get) and are
        confirmed with POST /images; larger files go in parts through the /s3/multipart routes.

        Options:
          --server URL            the presignd server (required), e.g. http://127.0.0.1:8080
          --token TOKEN           sent as Authorization: Bearer TOKEN (auth.mode = jwt)
          --token-file F          the token read from a file (whitespace trimmed)
          --user-id ID            sent as X-User-Id (auth.mode = dev; the header auth.devUserHeader names)
          -H, --header 'N: V'     one more header for the server (repeatable; never sent to storage)
          --type TYPE             the upload type (PROFILE, FEED, IMAGE, ...; POST form: optional)
          --form post|get         the issue route: POST /presigned-url (default) or GET ?type=&ext=
          --content-type T        instead of the type guessed from the file's extension
          --meta key=value        metadata stored with the record (repeatable)
          --json                  one JSON object per file on stdout: file, key, recordId, sha256, bytes,
                                  seconds, ...
          --no-checksums          declare the file's size alone: by default its SHA-256 and MD5 are read from the
                                  file and declared (the server signs what its storage checks, proves the
                                  rest and records the SHA-256; a multipart upload declares the size and
                                  SHA-256 at creation and signs each part's MD5)
          --resume                continue an interrupted multipart upload from its state file (in the part
                                  size it was started with; the file must be unchanged)
          --restart               abort an interrupted multipart upload and send the file again
          --state-dir DIR         where multipart state files live (default .presign-upload in the current dir)
          --background-style      send large files through the native /uploads API as a phone's background
                                  session does: every part URL signed up front, the state saved per part,
                                  a rerun sends only what the server lacks (needs multipart.enabled there)
          --multipart-threshold M files larger than M MiB go in parts (default 16; the server needs
                                  uppy.enabled: without it, a file under 5 GiB goes in one PUT)
          --part-size M           MiB per part (default 8, at least 5)
          --concurrency N         parts in flight (default 4); parts held in memory: at most N + 1
          --max-attempts N        attempts per part before giving up (default 5)
          --progress MODE         auto (bar on a terminal, lines otherwise), bar, lines or none
          -h, --help              this text

        Exit codes: 0 done; 1 another failure (a file that cannot be read); 2 usage; 3 network (no answer);
        4 the server refused (its code is printed); 5 the storage refused the upload (its XML code is printed).

        Examples:
          presign-upload --server http://127.0.0.1:8080 --user-id 42 photo.jpg
          presign-upload --server https://api.example.com --token-file ~/.token --type PROFILE --form get me.png
          presign-upload --server http://127.0.0.1:8080 --user-id 42 --type VIDEO --json --part-size 16 --concurrency 6 video.mp4
          presign-upload --server http://127.0.0.1:8080 --user-id 42 --type VIDEO --resume video.mp4   # after an interruption
        """
}
