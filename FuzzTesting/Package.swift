// swift-tools-version:5.9
// libFuzzer harnesses for the HTTP1, JSON and ImageProbe modules, kept in their own package so that
// `swift build` / `swift test` of the main package never link the fuzz entry point
// (`bash FuzzTesting/run-fuzz.sh` builds and runs them; docs/http-profile.md has the last run). The main
// package's identity is its directory's name (`main` in /work/main, `wt-<name>` in a worktree), so it is
// read from this manifest's path.
import Foundation
import PackageDescription

let main = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "FuzzTesting",
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "CFuzzShim"),
        .executableTarget(
            name: "FuzzHTTP1",
            dependencies: [.product(name: "HTTP1", package: main), "CFuzzShim"]),
        .executableTarget(
            name: "FuzzJSON",
            dependencies: [.product(name: "JSON", package: main), "CFuzzShim"]),
        .executableTarget(
            name: "FuzzImageProbe",
            dependencies: [.product(name: "ImageProbe", package: main), "CFuzzShim"]),
    ]
)
