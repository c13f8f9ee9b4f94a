import Crypto
import HTTPClient
import SigV4

extension S3Client {
    /// CreateTopic on Ceph RGW's SNS-compatible topic API (`POST /`, `Action=CreateTopic`, signed with
    /// SigV4 like every call here): a topic named `name` pushing to `pushEndpoint` (an `http://` or
    /// `https://` URL), through RGW's persistent queue when `persistent` (an event is kept and sent again
    /// until the endpoint answers 2xx), with `opaqueData` copied into every event record. Its ARN.
    ///
    /// Creating a topic that exists updates it (RGW answers the same ARN), so the call is idempotent and
    /// retried.
    @discardableResult
    public func createTopic(name: String, pushEndpoint: String, persistent: Bool, opaqueData: String?)
        throws(ObjectStoreError) -> String
    {
        var attributes: [(String, String)] = [("push-endpoint", pushEndpoint)]
        if persistent { attributes.append(("persistent", "true")) }
        if let opaqueData { attributes.append(("OpaqueData", opaqueData)) }
        var form: [(String, String)] = [("Action", "CreateTopic"), ("Name", name)]
        for (index, (key, value)) in attributes.enumerated() {
            form.append(("Attributes.entry.\(index + 1).key", key))
            form.append(("Attributes.entry.\(index + 1).value", value))
        }
        return try performService(form) { (response) throws(ObjectStoreError) -> String in
            guard response.status == 200 else { throw Self.serviceError(response) }
            return try NotificationXML.createdTopicARN(response.body)
        }
    }

    /// DeleteTopic of the topic `arn`; a topic that is not there is not an error.
    public func deleteTopic(arn: String) throws(ObjectStoreError) {
        try performService([("Action", "DeleteTopic"), ("TopicArn", arn)]) { (response) throws(ObjectStoreError) in
            guard response.status == 200 || response.status == 404 else { throw Self.serviceError(response) }
        }
    }

    /// ListTopics: every topic of this user (RGW 16.2 answers them in one page).
    public func listTopics() throws(ObjectStoreError) -> [TopicInfo] {
        try performService([("Action", "ListTopics")]) { (response) throws(ObjectStoreError) -> [TopicInfo] in
            guard response.status == 200 else { throw Self.serviceError(response) }
            return try NotificationXML.topics(response.body)
        }
    }

    /// PutBucketNotificationConfiguration of the client's bucket: replaces the bucket's topic configurations
    /// with `rules` (Ceph RGW adds to or updates its notifications by id; S3 replaces the whole set).
    public func putBucketNotification(_ rules: [NotificationRule]) throws(ObjectStoreError) {
        let body = NotificationXML.configuration(rules)
        try perform(
            "PUT", key: "", query: [("notification", "")], headers: [("Content-Type", "application/xml")], body: body,
            payloadHash: SHA256.hash(body).hex
        ) { (response) throws(ObjectStoreError) in
            guard response.status == 200 || response.status == 204 else { throw Self.statusError(response) }
        }
    }

    /// GetBucketNotificationConfiguration of the client's bucket: its topic configurations.
    public func bucketNotification() throws(ObjectStoreError) -> [NotificationRule] {
        try perform("GET", key: "", query: [("notification", "")]) {
            (response) throws(ObjectStoreError) -> [NotificationRule] in
            guard response.status == 200 else { throw Self.statusError(response) }
            return try NotificationXML.rules(response.body)
        }
    }

    /// Removes the bucket's notifications: Ceph RGW's `DELETE /<bucket>?notification` (all of them, or
    /// the one named `id` with `?notification=<id>`). On AWS S3, put an empty configuration instead.
    public func deleteBucketNotification(id: String? = nil) throws(ObjectStoreError) {
        try perform("DELETE", key: "", query: [("notification", id ?? "")]) { (response) throws(ObjectStoreError) in
            guard response.status == 200 || response.status == 204 || response.status == 404 else {
                throw Self.statusError(response)
            }
        }
    }

    /// Signs and sends one form-encoded `POST /` to the endpoint (the topic API), retrying through
    /// `retrying`, as `perform` does.
    func performService<Result>(
        _ form: [(String, String)], handle: (HTTPResponse) throws(ObjectStoreError) -> Result
    ) throws(ObjectStoreError) -> Result {
        var body = [UInt8]()
        for (index, (name, value)) in form.enumerated() {
            if index > 0 { body.append(UInt8(ascii: "&")) }
            Self.appendURIEncoded(name, keepingSlash: false, to: &body)
            body.append(UInt8(ascii: "="))
            Self.appendURIEncoded(value, keepingSlash: false, to: &body)
        }
        let headers = [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")]
        let endpoint = options.endpoint
        let address = ServerAddress(
            usesTLS: endpoint.scheme == "https", host: endpoint.host, port: endpoint.port ?? endpoint.defaultPort)
        return try retrying { () throws(ObjectStoreError) -> Result in
            let signed: SignedRequest
            do throws(SigV4Error) {
                signed = try signer.signServiceRequest(
                    method: "POST", headers: headers, payloadHash: SHA256.hash(body).hex, now: now())
            } catch {
                throw ObjectStoreError.signing(String(describing: error))
            }
            let request = HTTPRequest(method: "POST", target: signed.target, headers: signed.headers, body: body)
            return try handle(send(request, to: address))
        }
    }

    /// The error of a topic API answer: its status and the `<Code>` of its `ErrorResponse` or `Error`.
    static func serviceError(_ response: HTTPResponse) -> ObjectStoreError {
        if let code = S3XML.errorCode(response.body) { return .status(response.status, code: code) }
        let code = S3XML.firstElementText("Code", in: response.body).flatMap {
            $0.isEmpty || $0.utf8.count > 64 || !$0.utf8.allSatisfy({ $0 < 0x80 && $0 > 0x20 }) ? nil : $0
        }
        return .status(response.status, code: code)
    }
}
