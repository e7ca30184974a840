#!/usr/bin/env bash
# Runs the tests of one level (docs/testing.md, "Test levels"):
#
#   Tests/TestLevels/run.sh unit [swift test options…]          pure code, seconds
#   Tests/TestLevels/run.sh integration [swift test options…]   real files, libraries, devices, processes
#   Tests/TestLevels/run.sh system [Tests/System/run.sh options…]   the board in a box
#   Tests/TestLevels/run.sh unit --print-filter                 the --filter it would pass
#   Tests/TestLevels/run.sh check                               fails on a suite with no level
#
# Each suite names its level on its @Suite line (`.tags(.unit)`, `.tags(.integration)`,
# `.tags(.system)`: TestLevels.swift here). `swift test` filters by name only (`--filter`, a
# regular expression over `Target.Suite/test`), so this turns the level's suites into one
# filter. The system level needs the VM: it runs Tests/System/run.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."

level=${1:-}
if [ "$level" = check ]; then
  # Every @Suite names its level: a suite without one would belong to no level's run.
  untagged=$(find Tests -name '*.swift' -not -path 'Tests/Fuzz/*' -print0 | sort -z | xargs -0 perl -0 -ne '
    while (/^\@Suite\b(.*?)\s(?:final\s+)?(?:struct|class|enum|actor)\s+(\w+)/msg) {
      print "$ARGV: $2\n" unless $1 =~ /\.tags\([^)]*\.(unit|integration|system)\b/;
    }')
  if [ -n "$untagged" ]; then
    echo "test-levels: suites with no level tag (.unit, .integration or .system):" >&2
    echo "$untagged" >&2
    exit 1
  fi
  echo "test-levels: every suite names its level"
  exit 0
fi
case "$level" in
  unit|integration|system) shift ;;
  *) echo "usage: $0 unit|integration|system [--print-filter] [options…]" >&2; exit 2 ;;
esac

# Target.Suite of every top-level suite whose @Suite line carries the level's tag (nested
# suites inherit the tag and sit under their parent's name).
filter=$(find Tests -name '*.swift' -not -path 'Tests/Fuzz/*' -print0 | sort -z | LEVEL=$level perl -0 -e '
  use strict; use warnings;
  my @suites;
  local $/ = "\0";
  my @paths = map { chomp; $_ } <STDIN>;
  for my $path (@paths) {
    my ($target) = $path =~ m{^Tests/([^/]+)/} or next;
    open my $fh, "<", $path or die "$path: $!\n";
    local $/;
    my $text = <$fh>;
    while ($text =~ /^\@Suite\b(.*?)\s(?:final\s+)?(?:struct|class|enum|actor)\s+(\w+)/msg) {
      my ($attributes, $name) = ($1, $2);
      push @suites, "$target\\.$name/" if $attributes =~ /\.tags\([^)]*\.$ENV{LEVEL}\b/;
    }
  }
  print join("|", @suites);
')
if [ -z "$filter" ]; then
  echo "$0: no suite is tagged .$level" >&2
  exit 1
fi
if [ "${1:-}" = --print-filter ]; then
  echo "$filter"
  exit 0
fi

if [ "$level" = system ]; then
  exec Tests/System/run.sh "$@"
fi
export PATH="/opt/swift/usr/bin:$PATH"
exec swift test --filter "$filter" "$@"
