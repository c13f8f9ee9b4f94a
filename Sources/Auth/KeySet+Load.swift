import Crypto
import System

extension KeySet {
    /// Largest key file read, in bytes.
    public static let maxKeyFileBytes = 1 << 20

    /// Reads and parses every key source: each PEM file (all its blocks), the JWKS file (when
    /// `jwksFile` is given and not empty), and the HS256 secret (at least 32 bytes).
    ///
    /// `readFile` is the one piece of I/O; tests pass their own. Every failure names the file.
    public static func load(
        pemFiles: [String], jwksFile: String?, hs256Secret: Secret?,
        readFile: (String) throws -> [UInt8] = { try KeySet.readFile(atPath: $0) }
    ) throws(AuthError) -> KeySet {
        var keys: [VerificationKey] = []
        var notes: [String] = []
        for path in pemFiles {
            keys += try Self.keys(pem: contents(of: path, readFile), path: path)
        }
        if let jwksFile, !jwksFile.isEmpty {
            let loaded = try Self.keys(jwks: contents(of: jwksFile, readFile), path: jwksFile)
            keys += loaded.keys
            notes += loaded.notes
        }
        if let hs256Secret {
            guard hs256Secret.count >= 32 else { throw .weakHS256Secret(bytes: hs256Secret.count) }
            keys.append(
                VerificationKey(kid: nil, material: .hmac(HMACKey(key: hs256Secret)), source: "auth.hs256Secret"))
        }
        return try KeySet(keys: keys, notes: notes)
    }

    /// Every public key of the PEM document `pem` (public keys and X.509 certificates), without `kid`.
    public static func keys(pem: [UInt8], path: String) throws(AuthError) -> [VerificationKey] {
        let publicKeys: [PublicKey]
        do {
            publicKeys = try PublicKey.keys(pem: pem)
        } catch {
            throw .invalidPEMFile(path: path, reason: Self.describe(error))
        }
        return publicKeys.enumerated().map { position, key in
            VerificationKey(kid: nil, material: .publicKey(key), source: "\(path) block \(position + 1)")
        }
    }

    /// The contents of the key file at `path`, or the error that names it.
    private static func contents(of path: String, _ readFile: (String) throws -> [UInt8]) throws(AuthError) -> [UInt8] {
        do {
            return try readFile(path)
        } catch let error as AuthError {
            throw error
        } catch {
            throw .cannotReadKeyFile(path: path, reason: "\(error)")
        }
    }

    /// A Crypto error as text for a message (its reason never holds key material).
    static func describe(_ error: CryptoError) -> String {
        switch error {
        case .invalidKey(let reason), .unsupportedKey(let reason): return reason
        case .randomUnavailable(let detail), .signingFailed(let detail): return detail
        }
    }

    /// Reads a whole file of at most `maxKeyFileBytes`, retrying interrupted reads.
    public static func readFile(atPath path: String) throws(AuthError) -> [UInt8] {
        do {
            return try FileReader.readAll(atPath: path, limit: maxKeyFileBytes)
        } catch {
            throw .cannotReadKeyFile(path: path, reason: error.description)
        }
    }
}
