import Testing

@testable import CloudCredentials

/// The INI reading of the shared credentials and config files.
@Suite struct ProfileFileTests {
    /// Parses `text` as a file of `kind`.
    func parse(_ text: String, _ kind: ProfileFile.Kind = .credentials) throws -> [String: [String: String]] {
        try ProfileFile.parse(Array(text.utf8), kind: kind, source: "/f", provider: "shared files").profiles
    }

    @Test func readsSectionsCommentsAndWhitespace() throws {
        let profiles = try parse(
            """
            \u{FEFF}# a comment
              ; another, indented
            [default]
            aws_access_key_id=AKIDDEFAULT
              \t
            AWS_Secret_Access_Key =  secret/with+chars=  \r
            [ prod ] # trailing comment
            aws_access_key_id = AKIDPROD
            aws_access_key_id = AKIDPROD2
            aws_session_token = token#not-a-comment ;nor this
            [default]
            region = eu-west-1
            """)
        #expect(
            profiles["default"] == [
                "aws_access_key_id": "AKIDDEFAULT", "aws_secret_access_key": "secret/with+chars=",
                "region": "eu-west-1",
            ])
        #expect(
            profiles["prod"] == [
                "aws_access_key_id": "AKIDPROD2", "aws_session_token": "token#not-a-comment ;nor this",
            ])
    }

    @Test func configFileNamesProfilesWithAPrefix() throws {
        let profiles = try parse(
            """
            [default]
            region = us-east-1
            [profile dev]
            aws_access_key_id = AKIDDEV
            s3 =
              max_concurrent_requests = 10
            aws_secret_access_key = SECRETDEV
            [profile  default]
            output = json
            [sso-session corp]
            sso_region = us-east-1
            [plain]
            aws_access_key_id = IGNORED
            [profiledev]
            aws_access_key_id = IGNORED
            """, .config)
        #expect(profiles["default"] == ["region": "us-east-1", "output": "json"])
        #expect(profiles["dev"] == ["aws_access_key_id": "AKIDDEV", "s3": "", "aws_secret_access_key": "SECRETDEV"])
        #expect(profiles["plain"] == nil)
        #expect(profiles["corp"] == nil && profiles["sso-session corp"] == nil && profiles["profiledev"] == nil)
    }

    @Test func credentialsFileTakesNamesAsTheyAre() throws {
        let profiles = try parse("[profile x]\na = 1\n")
        #expect(profiles["profile x"] == ["a": "1"])
    }

    @Test(arguments: [
        ("aws_access_key_id = AKID\n", 1, "a property before any section"),
        ("[default]\njust some words\n", 2, "expected key = value"),
        ("[default]\n= value\n", 2, "a property without a key"),
        ("[default]\r\n = value\r\n", 2, "an indented line continues no property"),
        ("[default\nx = 1\n", 1, "a section header lacks its ]"),
        ("[]\n", 1, "an empty section name"),
        ("[default] junk\n", 1, "text after a section header"),
        ("  indented = first\n", 1, "an indented line continues no property"),
        ("# c\n\n[default]\n\n  continued\n", 5, "an indented line continues no property"),
    ])
    func reportsTheLineNeverTheValue(text: String, line: Int, reason: String) {
        #expect(
            throws: CredentialsError.invalidConfiguration(
                provider: "shared files", reason: "/f line \(line): \(reason)")
        ) {
            try parse(text)
        }
    }

    @Test func refusesNonUTF8() {
        #expect(throws: CredentialsError.invalidConfiguration(provider: "shared files", reason: "/f is not UTF-8 text"))
        {
            try ProfileFile.parse([0x5b, 0xff, 0x5d], kind: .config, source: "/f", provider: "shared files")
        }
    }
}
