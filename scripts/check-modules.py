#!/usr/bin/env python3
"""check-modules.py - holds the module graph to docs/architecture.md's picture.

Reads the targets and their dependencies from Package.swift and the `import` lines of every Swift file
under each source target's folder, and fails (exit 1, one line per problem) when
  - a module imports a module it does not declare in Package.swift (toolchain modules excepted),
  - a dependency (declared or imported) goes upward or sideways against the layers below,
  - the declared dependencies form a cycle, or
  - a target under Sources/ is missing from the layers (every new module must be placed),
  - a module of NO_HTTP (Uploads: the upload lifecycle) declares or imports an HTTP module (any module
    named HTTP*: HTTP1, HTTPServer, an HTTP client),
  - a module declares or imports a module NOT_USING keeps from it, though the layers would allow it
    (Records: Config; the store takes its location and pool settings as values, which App maps from
    the configuration),
  - a server target declares a test-support target (a target whose folder is under Tests/:
    TestSupport, ObjectStoreTestSupport, UploadsTestSupport, RecordsTestSupport), or
  - App's folders are crossed (APP_FOLDERS): every App source file is in a folder of a front door
    (Native, Compat, Uppy, Ops, Events), of the shared pieces (Shared, Admission) or of the wiring (Wiring),
    but for the files APP_TOP_LEVEL names; a type declared in one front door's folder (or a static
    member one adds to an outside type) is not named in another front door's folder nor in a shared
    one; nothing but the wiring names the wiring's types. Names are read from the code with comments
    and string literals left out.
Layers, lowest first (a module may use only modules of lower layers):
  0 C shims and system libraries   CLinux COpenSSL CSQLite CPostgres CPostgresLoader (these may use
                                   each other: CPostgresLoader wraps CPostgres's headers)
  1 System                         threads, the monitor, clocks, whole-file reads, civil dates
  2 Crypto JSON HTTP1 ImageProbe   pure cores
  3 SigV4 Auth Config StoreEvents  (StoreEvents: S3 event JSON and SNS verification, pure)
    HTTPClient Logging Webhooks    (HTTPClient: the blocking HTTP/1.1 client the server's own calls use;
    Clamd                          Logging: the log sink and its level, JSON lines over JSON's escaper;
                                   Webhooks: Standard Webhooks signing and the retry schedule, pure;
                                   Clamd: clamd's INSTREAM protocol over a blocking socket)
  4 HTTPServer ObjectStore Records I/O shells; Explain (explain mode's pure analysis, over SigV4)
  5 CloudCredentials Uploads       the credential chain (over HTTPClient; ObjectStore only for S3XML);
    WebhookDelivery                the upload lifecycle (no HTTP module; its scan worker over Clamd); the
                                   webhook outbox's delivery
                                   (over HTTPClient and Records' leases)
  6 App                            the front doors, admission, wiring
  7 Commands                       the command-line modes (dispatch, healthcheck, explain)
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
    ["SigV4", "Auth", "Config", "StoreEvents", "HTTPClient", "Logging", "Webhooks", "Clamd"],
    ["HTTPServer", "ObjectStore", "Records", "Explain"],
    ["CloudCredentials", "Uploads", "WebhookDelivery"],
    ["App"],
    ["Commands"],
    ["presignd", "PresignBench"],
]
# Modules that may not use any HTTP module (a module whose name starts with HTTP).
NO_HTTP = ["Uploads"]
# Modules kept from others below them, with why: neither declared nor imported.
NOT_USING = {
    "Records": {
        "Config": "Records takes its location and pool settings as values (RecordStoreSettings), mapped from "
        "the configuration by App",
    },
}
# App's folders: the front doors (none names another's types), the shared pieces (they name no front
# door's types), and the wiring (it assembles them all; only it names its own types).
APP_FOLDERS = {
    "front door": ["Native", "Compat", "Uppy", "Ops", "Events"],
    "shared": ["Shared", "Admission"],
    "wiring": ["Wiring"],
}
# Files left at App's top level: the explain mode and the API document, which move out of App with
# their own module and resource (issue 20's seams).
APP_TOP_LEVEL = [
    "ExplainService.swift", "SignatureExplanation+JSON.swift", "OpenAPIService.swift",
    "OpenAPIDocument.swift",
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
        if name in NO_HTTP:
            problems.extend(http_problems(root, name, deps, folder))
        for kept, why in NOT_USING.get(name, {}).items():
            if kept in deps:
                problems.append(f"{name}: declares {kept}: {why}")
            for path, module in imports_of(os.path.join(root, folder)):
                if module == kept:
                    problems.append(f"{os.path.relpath(path, root)}: imports {kept}: {why}")
        if name == "App" and os.path.isdir(os.path.join(root, folder)):
            problems.extend(app_folder_problems(root, folder))
        for path, module in imports_of(os.path.join(root, folder)):
            where = os.path.relpath(path, root)
            if module in TOOLCHAIN or module == name:
                continue
            if module not in deps:
                problems.append(f"{where}: imports {module}, which {name} does not declare in Package.swift")
            elif not is_test and module in layer and not below(layer, module, name):
                problems.append(f"{where}: imports {module} (layer {layer[module]}) from layer {layer[name]}: not below it")
    return problems


def http_problems(root, name, deps, folder):
    """The no-HTTP rule of NO_HTTP's modules: no HTTP* module declared or imported."""
    problems = []
    for dep in deps:
        if dep.startswith("HTTP"):
            problems.append(f"{name}: declares {dep}, an HTTP module: {name} must not use HTTP (its front doors do)")
    for path, module in imports_of(os.path.join(root, folder)):
        if module.startswith("HTTP"):
            where = os.path.relpath(path, root)
            problems.append(f"{where}: imports {module}, an HTTP module: {name} must not use HTTP (its front doors do)")
    return problems


def code_only(text):
    """Swift source with comments and string literals blanked out (nested block comments, raw and
    multi-line strings), so only code's names remain."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif text[i] == '"' or (text[i] == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r"#*", text[i:]).group(0))
            i += hashes
            quote = '"""' if text.startswith('"""', i) else '"'
            i += len(quote)
            close = quote + "#" * hashes
            while i < n and not text.startswith(close, i):
                i += 2 if (text[i] == "\\" and not hashes) else 1
            i += len(close)
            out.append('""')
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


TYPE_DECL_RE = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*"
    r"(?:struct|class|enum|protocol|typealias|actor)\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
EXTENSION_RE = re.compile(r"^(?:(?:public|internal|fileprivate|private)\s+)?extension\s+([A-Za-z_][A-Za-z0-9_.]*)[^{]*\{", re.M)
STATIC_MEMBER_RE = re.compile(
    r"^ {4}(?:@\w+\s+)*(?:(?:public|internal|fileprivate|private)\s+)?static\s+(?:func|var|let)\s+([A-Za-z_][A-Za-z0-9_]*)",
    re.M)


def app_folder_problems(root, folder):
    """The rules of App's folders (APP_FOLDERS, APP_TOP_LEVEL)."""
    base = os.path.join(root, folder)
    kind_of = {f: kind for kind, folders in APP_FOLDERS.items() for f in folders}
    problems, files = [], {}
    for directory, _, names in os.walk(base):
        for file in sorted(names):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(directory, file)
            where = os.path.relpath(path, root)
            parts = os.path.relpath(path, base).split(os.sep)
            if len(parts) == 1:
                if file not in APP_TOP_LEVEL:
                    problems.append(f"{where}: not in a folder of App's (a front door, Shared, Admission or Wiring)")
                continue
            if parts[0] not in kind_of:
                problems.append(f"{where}: {parts[0]} is no folder of App's (add it to APP_FOLDERS and docs/architecture.md)")
                continue
            with open(path, encoding="utf-8") as handle:
                files[path] = (parts[0], code_only(handle.read()))
    # Who declares what: top-level types, and static members added to types declared elsewhere.
    types, declared = {}, {}
    for path, (owner, code) in files.items():
        for name in TYPE_DECL_RE.findall(code):
            types.setdefault(name, set()).add(owner)
            declared.setdefault(name, set()).add(owner)
    for path, (owner, code) in files.items():
        for match in EXTENSION_RE.finditer(code):
            extended = match.group(1).split(".")[0]
            if owner in types.get(extended, set()):
                continue
            end = code.find("\n}", match.end())
            body = code[match.end():end if end >= 0 else len(code)]
            for name in STATIC_MEMBER_RE.findall(body):
                declared.setdefault("." + name, set()).add(owner)
    for path, (owner, code) in sorted(files.items()):
        if kind_of[owner] == "wiring":
            continue
        where = os.path.relpath(path, root)
        names = set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", code))
        members = set("." + m for m in re.findall(r"\.([A-Za-z_][A-Za-z0-9_]*)", code))
        for name in sorted(names | members):
            owners = declared.get(name, set())
            if not owners or owner in owners or any(kind_of[o] == "shared" for o in owners):
                continue
            for other in sorted(owners):
                if kind_of[other] == "wiring":
                    problems.append(f"{where}: names {name.lstrip('.')}, declared in App/{other}: only the wiring names its own types")
                elif kind_of[other] == "front door" and kind_of[owner] == "front door":
                    problems.append(f"{where}: names {name.lstrip('.')}, declared in App/{other}: a front door does not use another's (shared pieces go in Shared)")
                elif kind_of[other] == "front door":
                    problems.append(f"{where}: names {name.lstrip('.')}, declared in App/{other}: a shared piece does not use a front door's")
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
    # An App of front doors: Native's type, named by the wiring and in Compat's comments and strings only;
    # a shared type every folder names; Uppy's static member on an outside type.
    app = {
        "Package.swift": '.target(name: "System"),\n.target(name: "HTTP1"),\n'
        '.target(name: "App", dependencies: ["System"]),\n',
        "Sources/System/A.swift": "import Glibc\n",
        "Sources/HTTP1/H.swift": "struct H {}\n",
        "Sources/App/Native/NativeThing.swift": "final class NativeThing { let s = SharedThing() }\n",
        "Sources/App/Compat/CompatThing.swift": (
            '/// Not a NativeThing. /* nested /* NativeThing */ */\nstruct CompatThing {\n'
            '    let text = "NativeThing \\\\" + #"NativeThing"# + \"\"\"\n    NativeThing\n    \"\"\"\n'
            "    let s = SharedThing()\n}\n"),
        "Sources/App/Uppy/Response+Companion.swift": "extension Response {\n    static func companion() -> Response { Response() }\n}\n",
        "Sources/App/Shared/SharedThing.swift": "struct SharedThing {}\n",
        "Sources/App/Wiring/Application.swift": "final class Application { let n = NativeThing(); let c = CompatThing() }\n",
        "Sources/App/ExplainService.swift": "struct ExplainService { let a: Application? = nil }\n",
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
        "the lifecycle declares an HTTP module": (
            dict(app, **{"Package.swift": app["Package.swift"] + '.target(name: "Uploads", dependencies: ["HTTP1"]),\n'}),
            "an HTTP module",
        ),
        "the lifecycle imports an HTTP module": (
            dict(app, **{"Package.swift": app["Package.swift"] + '.target(name: "Uploads", dependencies: ["HTTP1"]),\n',
                         "Sources/Uploads/U.swift": "import HTTP1\n"}),
            "imports HTTP1, an HTTP module",
        ),
        "the store declares Config": (
            dict(good, **{
                "Package.swift": good["Package.swift"] + '.target(name: "Config", dependencies: ["System"]),\n'
                '.target(name: "Records", dependencies: ["Config", "System"]),\n',
                "Sources/Config/K.swift": "struct K {}\n",
            }),
            "Records: declares Config: Records takes its location",
        ),
        "the store imports Config": (
            dict(good, **{
                "Package.swift": good["Package.swift"] + '.target(name: "Config", dependencies: ["System"]),\n'
                '.target(name: "Records", dependencies: ["System"]),\n',
                "Sources/Config/K.swift": "struct K {}\n",
                "Sources/Records/SQLite/S.swift": "import Config\n",
            }),
            "Sources/Records/SQLite/S.swift: imports Config: Records takes its location",
        ),
        "a server target declares the records' test support": (
            dict(good, **{
                "Package.swift": good["Package.swift"] + '.target(name: "Records", dependencies: ["System"]),\n'
                '.target(name: "RecordsTestSupport", dependencies: ["Records"], path: "Tests/RecordsTestSupport"),\n'
                '.target(name: "Uploads", dependencies: ["Records", "RecordsTestSupport"]),\n',
            }),
            "Uploads: declares RecordsTestSupport, a test-support target",
        ),
        "app passes": (app, None),
        "a front door names another's type": (
            dict(app, **{"Sources/App/Compat/B.swift": "let b = NativeThing()\n"}), "a front door does not use another's",
        ),
        "a front door uses another's static extension member": (
            dict(app, **{"Sources/App/Native/N.swift": "func n() -> Response { .companion() }\n"}),
            "names companion, declared in App/Uppy",
        ),
        "a shared piece names a front door's type": (
            dict(app, **{"Sources/App/Shared/C.swift": "func c(_ n: NativeThing) {}\n"}),
            "a shared piece does not use a front door's",
        ),
        "a front door names the wiring's type": (
            dict(app, **{"Sources/App/Uppy/D.swift": "func d(_ a: Application) {}\n"}),
            "only the wiring names its own types",
        ),
        "a file outside App's folders": (dict(app, **{"Sources/App/Stray.swift": "struct Stray {}\n"}), "not in a folder"),
        "a folder App does not know": (
            dict(app, **{"Sources/App/Other/E.swift": "struct E {}\n"}), "is no folder of App's",
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
