/// The built-in defaults: byte for byte the contents of `config/presignd.json` (a test checks it).
///
/// Kept as a literal so the binary needs no file to start; edit both together.
enum DefaultConfiguration {
    /// The default configuration document.
    static let json = #"""
        {
          "server": {
            "host": "127.0.0.1",
            "port": 8080,
            "eventLoops": 0,
            "workerThreads": 32,
            "maxConnections": 10000,
            "headerTimeoutMs": 10000,
            "bodyTimeoutMs": 30000,
            "idleTimeoutMs": 60000,
            "drainTimeoutMs": 10000,
            "maxPipelinedPerRead": 32,
            "maxJsonBodyBytes": 65536,
            "metricsPort": 0
          },
          "tls": {
            "enabled": false,
            "certificateFile": "",
            "privateKeyFile": "",
            "minVersion": "1.2"
          },
          "log": {
            "level": "info",
            "accessLog": true
          },
          "auth": {
            "mode": "dev",
            "devUserHeader": "X-User-Id",
            "devDefaultUserId": "1",
            "jwtAlgorithms": ["RS256", "ES256"],
            "jwtIssuer": "",
            "jwtAudience": "",
            "jwtLeewaySeconds": 60,
            "jwtUserClaim": "sub",
            "jwtPublicKeyFiles": [],
            "jwksFile": "",
            "maxTokenBytes": 8192,
            "apiKeys": []
          },
          "limits": {
            "enabled": true,
            "issuePerUserPerMinute": 120,
            "issuePerAddressPerMinute": 600,
            "confirmPerUserPerMinute": 600,
            "confirmPerAddressPerMinute": 3000,
            "burst": 10,
            "trustForwardedFor": false
          },
          "s3": {
            "endpoint": "http://127.0.0.1:9000",
            "publicEndpoint": "",
            "region": "us-east-1",
            "bucket": "uploads",
            "addressing": "path",
            "accessKeyId": "",
            "requestTimeoutMs": 5000,
            "maxRetries": 2,
            "caFile": "",
            "maxClockSkewSeconds": 300,
            "verifyUploads": true
          },
          "presign": {
            "expiresSeconds": 600,
            "defaultPostType": "IMAGE",
            "readUrlExpiresSeconds": 3600,
            "cdnBaseUrl": "",
            "signIfNoneMatch": false
          },
          "types": {
            "PROFILE": {
              "extensions": ["jpg", "jpeg", "png"],
              "contentTypes": ["image/jpeg", "image/png"],
              "keyTemplate": "delete/profile/{userId}/{uuid}_{epochMillis}.{ext}",
              "permanentKeyTemplate": "profile/{userId}/origin/{uuid}_{epochMillis}.{ext}",
              "maxBytes": 10485760,
              "expiresSeconds": 600,
              "requiresChatroomId": false
            },
            "FEED": {
              "extensions": ["jpg", "jpeg", "png"],
              "contentTypes": ["image/jpeg", "image/png"],
              "keyTemplate": "delete/feed/{uuid}/{uuid}_{epochMillis}.{ext}",
              "permanentKeyTemplate": "feed/{uuid}/origin/{uuid}_{epochMillis}.{ext}",
              "maxBytes": 10485760,
              "expiresSeconds": 600,
              "requiresChatroomId": false
            },
            "CHATROOM_PROFILE": {
              "extensions": ["jpg", "jpeg", "png"],
              "contentTypes": ["image/jpeg", "image/png"],
              "keyTemplate": "delete/chatroom/{chatroomId}/{uuid}_{epochMillis}.{ext}",
              "permanentKeyTemplate": "chatroom/{chatroomId}/origin/{uuid}_{epochMillis}.{ext}",
              "maxBytes": 10485760,
              "expiresSeconds": 600,
              "requiresChatroomId": true
            },
            "CHAT": {
              "extensions": ["jpg", "jpeg", "png"],
              "contentTypes": ["image/jpeg", "image/png"],
              "keyTemplate": "delete/chatroom/{chatroomId}/chat/{uuid}/{uuid}_{epochMillis}.{ext}",
              "permanentKeyTemplate": "chatroom/{chatroomId}/chat/{uuid}/origin/{uuid}_{epochMillis}.{ext}",
              "maxBytes": 10485760,
              "expiresSeconds": 600,
              "requiresChatroomId": true
            },
            "CHAT_PROFILE": {
              "extensions": ["jpg", "jpeg", "png"],
              "contentTypes": ["image/jpeg", "image/png"],
              "keyTemplate": "delete/chatroom/{chatroomId}/chat_profile/{userId}/{uuid}_{epochMillis}.{ext}",
              "permanentKeyTemplate": "chatroom/{chatroomId}/chat_profile/{userId}/origin/{uuid}_{epochMillis}.{ext}",
              "maxBytes": 10485760,
              "expiresSeconds": 600,
              "requiresChatroomId": true
            },
            "IMAGE": {
              "extensions": [],
              "contentTypes": ["image/jpeg", "image/png", "image/heic", "image/webp"],
              "keyTemplate": "{imageKey}",
              "permanentKeyTemplate": "",
              "maxBytes": 20971520,
              "expiresSeconds": 600,
              "requiresChatroomId": false
            }
          },
          "records": {
            "url": "sqlite:data/presignd.sqlite3",
            "intentBatchSize": 256,
            "intentFlushMs": 20,
            "groupCommitMaxBatch": 256,
            "poolSize": 8,
            "janitorIntervalMs": 60000,
            "janitorBatchSize": 500,
            "intentIndexCapacity": 1000000,
            "deleteUnconfirmedObjects": false,
            "busyTimeoutMs": 5000
          }
        }

        """#
}
