#!/usr/bin/env bash
# The crash-safety soak: SIGKILLs `segmance import` at random moments thousands of times and
# proves the library whole after each kill (see Tests/SegmanceLibraryTests/CrashSafetyTests.swift).
#
#     Tests/Soak/crash-soak.sh [KILLS] [SEED]      # default 5000 kills, a random seed (printed)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
swift build --build-tests
export SEGMANCE_CRASH_KILLS="${1:-5000}"
[ -n "${2:-}" ] && export SEGMANCE_CRASH_SEED="$2"
swift test --skip-build --filter CrashSafetyTests
