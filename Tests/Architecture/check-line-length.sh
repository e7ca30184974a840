#!/usr/bin/env bash
# No line of Sources is over 120 characters (CONTRIBUTING.md). Prints each long line as
# FILE:LINE: N characters; exit 1 when there is one.
set -euo pipefail
cd "$(dirname "$0")/../.."

limit=120
pathspecs=(Sources)

git ls-files -z -- "${pathspecs[@]}" | LIMIT=$limit perl -0 -CSD -e '
  use strict; use warnings;
  my ($files, $long) = (0, 0);
  local $/ = "\0";
  my @paths = map { chomp; $_ } <STDIN>;
  for my $path (@paths) {
    open my $fh, "<:encoding(UTF-8)", $path or die "$path: $!\n";
    local $/ = "\n";
    $files++;
    while (my $line = <$fh>) {
      $line =~ s/\r?\n\z//;
      next unless length($line) > $ENV{LIMIT};
      printf "%s:%d: %d characters\n", $path, $., length($line);
      $long++;
    }
  }
  if ($long) { print STDERR "check-line-length: $long line(s) over $ENV{LIMIT} characters\n"; exit 1 }
  print "check-line-length: no line over $ENV{LIMIT} characters in $files files of Sources\n";
'
