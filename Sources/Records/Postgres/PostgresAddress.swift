import CPostgres

/// A PostgreSQL server as the store is given it (the App maps Config's `records.url` to it): the URL
/// libpq connects with, its redacted form for messages, and the password in every form it may take in
/// one of libpq's messages, so that no error of this module shows it.
///
/// `description` and reflection (`dump`) show only the redacted form.
public struct PostgresAddress: Sendable, CustomStringConvertible, CustomReflectable {
    /// The URL as written, handed to libpq; never printed.
    let connectionString: String
    /// The URL with its password redacted: safe to print or log.
    public let redacted: String
    /// The password as written and percent-decoded (empty: none).
    private let passwords: [String]

    /// An address from a URL that was already redacted (`redacted`) and whose password forms are known
    /// (`passwords`, each replaced by `<redacted>` in libpq's messages).
    public init(connectionString: String, redacted: String, passwords: [String]) {
        self.connectionString = connectionString
        self.redacted = redacted
        self.passwords = passwords.filter { !$0.isEmpty }
    }

    /// The redacted URL.
    public var description: String { redacted }

    /// A mirror showing only the redacted URL.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": redacted], displayStyle: .struct) }

    /// `message` with every form of the password replaced by `<redacted>`, and without trailing line
    /// breaks (libpq ends its messages with one).
    func scrub(_ message: String) -> String {
        var text = message
        for password in passwords { text = text.replacing(password, with: "<redacted>") }
        while let last = text.last, last == "\n" || last == "\r" { text.removeLast() }
        return text
    }

    /// Checks the URL with libpq's own parser; throws `.invalidURL` (without the password) when libpq
    /// refuses it.
    func checkWithLibpq() throws(RecordsError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &errorMessage) else {
            let message = errorMessage.map { String(cString: $0) } ?? "unparseable"
            if let errorMessage { PQfreemem(errorMessage) }
            throw .invalidURL("PostgreSQL URL \(redacted): \(scrub(message))")
        }
        PQconninfoFree(options)
    }
}
