#!/usr/bin/env bash
# Benchmarks/intent_cost.sh - instructions of the intent writer's thread per intent (callgrind counts
# do not depend on the machine's load): the build before rows (a checkout at OLD_TREE, default
# /work/wt-base at commit 0a9c255) against this tree, through Benchmarks/records-bench's IntentsBench.
#
# For each build and kind of key, IntentsBench submits N and 2N intents (batches of 256) to a fresh
# SQLite file under valgrind --tool=callgrind, collecting only inside the writer lane's thread
# (IntentLane.run: the commits and the completions); the difference over N is the cost of one intent.
# Keys: the build before gets fresh-v4 (the random UUIDs it drew) and client; this tree fresh-v7 (the
# issue route's keys), fresh-v7-created (the same with the time of issue: every row in the expiry
# index) and client (client B's random keys).
#   N (10000)  OLD_TREE (/work/wt-base; skipped when missing)  SCRATCH (/tmp/intent-cost)
# The old tree's Records imports Config, so its package is assembled here with Config and JSON beside
# it and this tree's IntentsBench. Needs valgrind (apt-get install valgrind). Loopback only: no network.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
N=${N:-10000}
OLD_TREE=${OLD_TREE:-/work/wt-base}
SCRATCH=${SCRATCH:-/tmp/intent-cost}
command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind" >&2; exit 1; }
mkdir -p "$SCRATCH"

# This tree's IntentsBench.
(cd Benchmarks/records-bench && swift build -c release --product IntentsBench --scratch-path "$SCRATCH/new-build" >&2)
cp "$SCRATCH/new-build/release/IntentsBench" "$SCRATCH/IntentsBench-new"

# The old tree's, with this tree's IntentsBench main (it names only API both trees have).
if [ -d "$OLD_TREE/Sources/Records" ]; then
  pkg="$SCRATCH/old-package"
  rm -rf "$pkg" && mkdir -p "$pkg/Sources/IntentsBench"
  for m in CLinux COpenSSL CPostgres CPostgresLoader CSQLite Crypto Records System Config JSON; do
    ln -s "$OLD_TREE/Sources/$m" "$pkg/Sources/$m"
  done
  cp Benchmarks/records-bench/Sources/IntentsBench/main.swift "$pkg/Sources/IntentsBench/main.swift"
  # The old Records opens stores from URL text itself: give the main what it calls under the same names.
  cat >"$pkg/Sources/IntentsBench/Compat.swift" <<'EOF'
import Config
import Records

/// `StoreLocation` of the rows build, as the build before names a store (by `records.url`).
enum StoreLocation {
    case url(String)
    static func sqlite(path: String) -> StoreLocation { .url("sqlite:" + path) }
    static func postgres(_ url: String) -> StoreLocation { .url(url) }
}

/// `PostgresAddress` of the rows build: the URL alone.
func PostgresAddress(connectionString: String, redacted: String, passwords: [String]) -> String { connectionString }

/// `RecordStoreSettings` of the rows build.
struct RecordStoreSettings {
    let location: StoreLocation
    let poolSize: Int
    let busyTimeoutMs: Int
}

extension RecordStoreFactory {
    /// The rows build's `open(_:)`, through the build before's `open(url:)`.
    static func open(_ settings: RecordStoreSettings) throws(RecordsError) -> any LifecycleStore {
        guard case .url(let url) = settings.location else { throw .invalidURL("no URL") }
        return try open(url: url, poolSize: settings.poolSize, busyTimeoutMs: settings.busyTimeoutMs)
    }
}
EOF
  cat >"$pkg/Package.swift" <<'EOF'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "intent-cost-old",
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3"),
        .systemLibrary(name: "CPostgres"),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl"),
        .target(name: "CPostgresLoader", dependencies: ["CPostgres"], linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CLinux"),
        .target(name: "System", dependencies: ["CLinux"]),
        .target(name: "Crypto", dependencies: ["COpenSSL"]),
        .target(name: "JSON"),
        .target(name: "Config", dependencies: ["JSON", "Crypto", "System"], resources: [.embedInCode("presignd.json")]),
        .target(
            name: "Records", dependencies: ["CSQLite", "CPostgres", "CPostgresLoader", "CLinux", "Config", "Crypto", "System"]),
        .executableTarget(name: "IntentsBench", dependencies: ["Records", "Config"]),
    ],
    swiftLanguageModes: [.v6]
)
EOF
  (cd "$pkg" && swift build -c release --scratch-path "$SCRATCH/old-build" >&2)
  cp "$SCRATCH/old-build/release/IntentsBench" "$SCRATCH/IntentsBench-old"
fi

# valgrind 3.19 cannot read Swift's DWARF 5: count on copies without debug information.
for b in new old; do [ -f "$SCRATCH/IntentsBench-$b" ] && strip -g "$SCRATCH/IntentsBench-$b"; done

instructions() { # binary keys count -> the writer thread's instructions
  local dir="$SCRATCH/run" out="$SCRATCH/callgrind.out"
  rm -rf "$dir" && mkdir -p "$dir"
  valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='$s7Records10IntentLaneC3run5store*' \
    "$1" "sqlite:$dir/b.db" "$3" 256 4096 "$2" >/dev/null 2>"$SCRATCH/valgrind.log"
  grep -E '^summary:|^totals:' "$out" | head -1 | awk '{print $2}'
}

printf '%-4s %-17s %s\n' build keys instructions/intent
for run in "new fresh-v7" "new fresh-v7-created" "new client" "old fresh-v4" "old client"; do
  set -- $run
  [ -f "$SCRATCH/IntentsBench-$1" ] || continue
  small=$(instructions "$SCRATCH/IntentsBench-$1" "$2" "$N")
  large=$(instructions "$SCRATCH/IntentsBench-$1" "$2" $((2 * N)))
  printf '%-4s %-17s %d\n' "$1" "$2" $(((large - small) / N))
done
