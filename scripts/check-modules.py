#!/usr/bin/env python3
"""check-modules.py - holds the module graph to docs/architecture.md's picture.

Reads the targets and their dependencies from Package.swift and the `import` lines of every Swift file
under each source target's folder, and fails (exit 1, one line per problem) when
  - a module imports a module it does not declare in Package.swift (toolchain modules excepted),
  - a dependency (declared or imported) goes upward or sideways against the layers below,
  - the declared dependencies form a cycle, or
  - a target under Sources/ is missing from the layers (every new module must be placed).
Layers, lowest first (a module may use only modules of lower layers):
  0 C shims and system libraries   CLinux COpenSSL CSQLite CPostgres CPostgresLoader (these may use
                                   each other: CPostgresLoader wraps CPostgres's headers)
  1 System                         threads, the monitor, clocks, whole-file reads, civil dates
  2 Crypto JSON HTTP1 ImageProbe   pure cores
  3 SigV4 Auth Config HTTPClient   (HTTPClient: the blocking HTTP/1.1 client the server's own calls use;
    Logging                        Logging: the log sink and its level, JSON lines over JSON's escaper)
  4 HTTPServer ObjectStore Records I/O shells; Explain (explain mode's pure analysis, over SigV4)
  5 CloudCredentials               (over HTTPClient; ObjectStore only for S3XML)
  6 App
  7 Commands                       the binary's command-line modes (explain)
  8 presignd PresignBench          executables
Test targets (Tests/) may import any module they declare; only the "declared" rule applies to them.
The client side (CLIENT: PresignClient, the library apps link, and PresignUpload, its command-line
uploader) stands outside the layers: it may declare and import only client modules and the toolchain
(Foundation, FoundationNetworking, Dispatch, the C library), never a server module, so that it builds
for iOS and macOS as well as Linux; and no server module may depend on it.

Usage: check-modules.py [--root DIR] | --self-test (checks that crafted bad trees fail).
"""
import os
import re
import sys
import tempfile

LAYERS = [
    ["CLinux", "COpenSSL", "CSQLite", "CPostgres", "CPostgresLoader"],
    ["System"],
    ["Crypto", "JSON", "HTTP1", "ImageProbe"],
    ["SigV4", "Auth", "Config", "HTTPClient", "Logging"],
    ["HTTPServer", "ObjectStore", "Records", "Explain"],
    ["CloudCredentials"],
    ["App"],
    ["Commands"],
    ["presignd", "PresignBench"],
]
# The client side: these may use each other (in this order: a module only those before it) and the
# toolchain, nothing else.
CLIENT = ["PresignClient", "PresignUpload"]
# Modules of the toolchain and the platform, importable without a declaration.
TOOLCHAIN = {
    "Swift", "Glibc", "Darwin", "Musl", "Foundation", "FoundationEssentials", "Dispatch", "Synchronization",
    "Testing", "XCTest", "_Concurrency", "PackageDescription", "FoundationNetworking",
}
TARGET_RE = re.compile(r"\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*\"([^\"]+)\"")
IMPORT_RE = re.compile(
    r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.M,
)


def parse_package(text):
    """Targets of Package.swift: name -> (kind, declared dependencies, folder)."""
    targets = {}
    starts = [m for m in TARGET_RE.finditer(text)]
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        body = text[match.end():end]
        kind, name = match.group(1), match.group(2)
        deps = []
        dep_match = re.search(r"dependencies:\s*\[(.*?)\]", body, re.S)
        if dep_match:
            deps = re.findall(r"\"([^\"]+)\"", dep_match.group(1))
        path_match = re.search(r"path:\s*\"([^\"]+)\"", body)
        folder = path_match.group(1) if path_match else ("Tests/" if kind == "testTarget" else "Sources/") + name
        targets[name] = (kind, deps, folder)
    return targets


def imports_of(folder):
    """(file, module) for each import line of the Swift files under folder."""
    found = []
    for directory, _, files in os.walk(folder):
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(directory, file)
            with open(path, encoding="utf-8") as handle:
                for module in IMPORT_RE.findall(handle.read()):
                    found.append((path, module))
    return found


def find_cycle(targets):
    """One cycle of declared dependencies as a list of names, or None."""
    state = {}

    def visit(name, trail):
        state[name] = "open"
        for dep in targets.get(name, (None, [], None))[1]:
            if dep not in targets:
                continue
            if state.get(dep) == "open":
                return trail[trail.index(dep):] + [dep] if dep in trail else [name, dep]
            if dep not in state:
                cycle = visit(dep, trail + [dep])
                if cycle:
                    return cycle
        state[name] = "done"
        return None

    for name in targets:
        if name not in state:
            cycle = visit(name, [name])
            if cycle:
                return cycle
    return None


def below(layer, dep, name):
    """Whether dep may be used by name: a lower layer, or both C modules (layer 0)."""
    return layer[dep] < layer[name] or layer[dep] == layer[name] == 0


def check(root):
    """Every problem of the tree at root, as lines."""
    with open(os.path.join(root, "Package.swift"), encoding="utf-8") as handle:
        targets = parse_package(handle.read())
    layer = {name: level for level, names in enumerate(LAYERS) for name in names}
    problems = []
    cycle = find_cycle(targets)
    if cycle:
        problems.append("cycle of dependencies: " + " -> ".join(cycle))
    for name, (kind, deps, folder) in sorted(targets.items()):
        is_test = kind == "testTarget" or folder.startswith("Tests/")
        if name in CLIENT:
            problems.extend(check_client(root, name, deps, folder))
            continue
        if not is_test and any(dep in CLIENT for dep in deps):
            problems.append(f"{name}: declares a client module ({', '.join(d for d in deps if d in CLIENT)}): "
                            "the server must not depend on the client")
        if not is_test and name not in layer:
            problems.append(f"{name}: not placed in a layer (add it to LAYERS in scripts/check-modules.py)")
            continue
        for dep in deps:
            if dep not in targets:
                problems.append(f"{name}: declares {dep}, which is not a target")
            elif not is_test and targets[dep][2].startswith("Tests/"):
                problems.append(f"{name}: declares {dep}, a test-support target (the server must not ship it)")
            elif not is_test and dep in layer and not below(layer, dep, name):
                problems.append(f"{name} (layer {layer[name]}) declares {dep} (layer {layer[dep]}): not below it")
        if kind == "systemLibrary":
            continue
        for path, module in imports_of(os.path.join(root, folder)):
            where = os.path.relpath(path, root)
            if module in TOOLCHAIN or module == name:
                continue
            if module not in deps:
                problems.append(f"{where}: imports {module}, which {name} does not declare in Package.swift")
            elif not is_test and module in layer and not below(layer, module, name):
                problems.append(f"{where}: imports {module} (layer {layer[module]}) from layer {layer[name]}: not below it")
    return problems


def check_client(root, name, deps, folder):
    """The client rule: only earlier client modules and the toolchain, declared or imported."""
    allowed = set(CLIENT[:CLIENT.index(name)])
    problems = []
    for dep in deps:
        if dep not in allowed:
            problems.append(f"{name}: declares {dep}: the client may use only {sorted(allowed) or 'the toolchain'}"
                            " (never a server module: it must build for iOS and macOS)")
    for path, module in imports_of(os.path.join(root, folder)):
        if module in TOOLCHAIN or module == name:
            continue
        where = os.path.relpath(path, root)
        if module not in allowed:
            problems.append(f"{where}: imports {module}: the client may import only the toolchain and "
                            f"{sorted(allowed) or 'nothing else'} (never a server module)")
        elif module not in deps:
            problems.append(f"{where}: imports {module}, which {name} does not declare in Package.swift")
    return problems


def self_test():
    """Crafted trees that must fail (and one that must pass); returns problems with the checker."""
    good = {
        "Package.swift": '.target(name: "System"),\n.target(name: "Crypto", dependencies: ["System"]),\n'
        '.testTarget(name: "CryptoTests", dependencies: ["Crypto"]),\n',
        "Sources/System/A.swift": "import Glibc\n",
        "Sources/Crypto/B.swift": "internal import System\n@testable import Crypto\n",
        "Tests/CryptoTests/T.swift": "import Testing\n@testable import Crypto\n",
    }
    cases = {
        "passes": (good, None),
        "undeclared import": (dict(good, **{"Sources/System/C.swift": "import JSON\n"}), "does not declare"),
        "upward import": (
            dict(good, **{
                "Package.swift": '.target(name: "System", dependencies: ["Crypto"]),\n.target(name: "Crypto"),\n',
                "Sources/System/C.swift": "import Crypto\n",
            }),
            "not below it",
        ),
        "cycle": (
            dict(good, **{
                "Package.swift": '.target(name: "System", dependencies: ["Crypto"]),\n'
                '.target(name: "Crypto", dependencies: ["System"]),\n',
            }),
            "cycle",
        ),
        "unplaced module": (
            dict(good, **{"Package.swift": good["Package.swift"] + '.target(name: "Stray"),\n'}),
            "not placed in a layer",
        ),
        "client imports a server module": (
            dict(good, **{
                "Package.swift": good["Package.swift"] + '.target(name: "PresignClient"),\n',
                "Sources/PresignClient/C.swift": "import Foundation\nimport Crypto\n",
            }),
            "the client may import only",
        ),
        "client declares a server module": (
            dict(good, **{"Package.swift": good["Package.swift"] + '.target(name: "PresignClient", dependencies: ["System"]),\n'}),
            "the client may use only",
        ),
        "server depends on the client": (
            dict(good, **{"Package.swift": '.target(name: "System", dependencies: ["PresignClient"]),\n'
                          '.target(name: "PresignClient"),\n'}),
            "must not depend on the client",
        ),
        "test imports undeclared": (
            dict(good, **{"Tests/CryptoTests/U.swift": "import System\n"}), "does not declare",
        ),
    }
    failures = []
    for label, (files, expected) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            for relative, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, relative)) or root, exist_ok=True)
                with open(os.path.join(root, relative), "w", encoding="utf-8") as handle:
                    handle.write(text)
            problems = check(root)
        if expected is None and problems:
            failures.append(f"self-test {label}: expected no problem, got {problems}")
        if expected is not None and not any(expected in p for p in problems):
            failures.append(f"self-test {label}: expected a problem with '{expected}', got {problems}")
    return failures


def main(argv):
    if argv[1:] == ["--self-test"]:
        failures = self_test()
        for line in failures:
            print(line, file=sys.stderr)
        if not failures:
            print("check-modules: self-test passed (bad trees fail, a good one passes)")
        return 1 if failures else 0
    root = argv[2] if len(argv) == 3 and argv[1] == "--root" else os.path.join(os.path.dirname(__file__), "..")
    if len(argv) not in (1, 3):
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(root)
    for line in problems:
        print("check-modules: " + line, file=sys.stderr)
    if not problems:
        print("check-modules: the module graph follows the layers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
