import Foundation
import PresignClient

/// `presign-upload get ID -o FILE`: downloads a record's object through its read URL
/// (`GET /images/{id}/url?disposition=attachment`, then a GET of that URL straight to the file).
struct GetCommand: Equatable {
    var server: URL?
    var token: String?
    var tokenFile: String?
    var userId: String?
    var headers: [String: String] = [:]
    var id: String?
    var output: String?
    var json = false
    var help = false

    /// The command line after `get`, parsed.
    static func parse(_ args: [String]) throws -> GetCommand {
        var c = GetCommand()
        var i = 0
        func value(_ name: String) throws -> String {
            i += 1
            guard i < args.count else { throw Options.UsageError(message: "\(name) needs a value") }
            return args[i]
        }
        while i < args.count {
            let a = args[i]
            switch a {
            case "-h", "--help": c.help = true
            case "--server":
                let v = try value(a)
                guard let u = URL(string: v), let scheme = u.scheme, ["http", "https"].contains(scheme), u.host != nil
                else { throw Options.UsageError(message: "--server: \(v) is not an http(s) URL") }
                c.server = u
            case "--token": c.token = try value(a)
            case "--token-file": c.tokenFile = try value(a)
            case "--user-id": c.userId = try value(a)
            case "--header", "-H":
                let v = try value(a)
                guard let colon = v.firstIndex(of: ":"), colon != v.startIndex else {
                    throw Options.UsageError(message: "--header wants 'Name: value'")
                }
                c.headers[String(v[..<colon])] = v[v.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            case "-o", "--output": c.output = try value(a)
            case "--json": c.json = true
            default:
                guard !a.hasPrefix("-") || a == "-" else { throw Options.UsageError(message: "unknown option \(a)") }
                guard c.id == nil else { throw Options.UsageError(message: "get takes one record ID") }
                c.id = a
            }
            i += 1
        }
        if c.help { return c }
        guard c.server != nil else { throw Options.UsageError(message: "--server URL is required") }
        guard c.id != nil else { throw Options.UsageError(message: "no record ID given") }
        guard c.output != nil else { throw Options.UsageError(message: "-o FILE is required") }
        if c.token != nil && c.tokenFile != nil {
            throw Options.UsageError(message: "--token and --token-file exclude each other")
        }
        return c
    }

    static let help = """
        presign-upload get: download a record's object

        Usage: presign-upload get --server URL [--token TOKEN | --token-file F | --user-id ID] ID -o FILE

        Asks GET /images/ID/url?disposition=attachment for the record's read URL (the caller's own records
        only) and writes the object to FILE (replaced if it exists), straight from storage to disk.

        Options:
          --server URL            the presignd server (required)
          --token TOKEN           sent as Authorization: Bearer TOKEN (auth.mode = jwt)
          --token-file F          the token read from a file (whitespace trimmed)
          --user-id ID            sent as X-User-Id (auth.mode = dev)
          -H, --header 'N: V'     one more header for the server (repeatable; never sent to storage)
          -o, --output FILE       where to write the bytes (required)
          --json                  print {"id","file","bytes","contentType"} on stdout
          -h, --help              this text

        Exit codes: 0 done; 1 the file cannot be written; 2 usage; 3 network; 4 the server refused (404
        IMAGE_NOT_FOUND: no such record of yours); 5 the storage refused the GET.
        """

    /// `presign-upload get …`: parses `args` (after `get`), prints the help or runs; the exit code.
    static func main(_ args: [String]) async -> Int32 {
        let command: GetCommand
        do {
            command = try parse(args)
        } catch let e as Options.UsageError {
            PresignUpload.fail("presign-upload get: \(e.message) (see presign-upload get --help)")
            return 2
        } catch {
            return 2
        }
        if command.help {
            print(help)
            return 0
        }
        return await command.run()
    }

    /// Runs the download; the exit code.
    func run() async -> Int32 {
        var token = self.token
        if let f = tokenFile {
            guard let text = try? String(contentsOfFile: (f as NSString).expandingTildeInPath, encoding: .utf8) else {
                PresignUpload.fail("presign-upload: cannot read the token file \(f)")
                return 2
            }
            token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var headers = self.headers
        if let u = userId { headers["X-User-Id"] = u }
        let client = PresignClient(configuration: .init(serverURL: server!, bearerToken: token, headers: headers))
        let file = URL(fileURLWithPath: output!)
        do {
            let (bytes, contentType) = try await client.download(id: id!, to: file)
            if json {
                PresignUpload.printJSON([
                    "id": id!, "file": file.path, "bytes": bytes, "contentType": contentType ?? NSNull(),
                ])
            } else {
                print("\(id!): \(bytes) bytes written to \(file.path)")
            }
            return 0
        } catch {
            let e = error as? PresignClientError ?? .file(String(describing: error))
            PresignUpload.fail("presign-upload: get \(id!): \(e)")
            if json {
                var out: [String: Any] = [
                    "id": id!, "error": e.description, "exitCode": Int(PresignUpload.exitCode(e)),
                ]
                if let s = e.status { out["status"] = s }
                if let c = e.serverCode { out["serverCode"] = c }
                if let c = e.storageCode { out["storageCode"] = c }
                PresignUpload.printJSON(out)
            }
            return PresignUpload.exitCode(e)
        }
    }
}
