#!/usr/bin/env bash
# Every link in the repository's Markdown stays in the repository and resolves: a relative
# path to a file or folder that exists, and an anchor (`#…`) to a heading of its page, as
# GitHub names headings. A link with a scheme (https:, file:, …), an absolute path or a path
# that climbs out of the repository fails, as does a missing file or heading.
# Prints each bad link as FILE:LINE: LINK: REASON; exit 1 when there is one.
set -euo pipefail
cd "$(dirname "$0")/../.."

git ls-files -z '*.md' | perl -0 -CSD -Mutf8 -e '
use strict; use warnings;
use File::Spec; use File::Basename qw(dirname);
my @files = map { chomp; $_ } grep { length } split /\0/, do { local $/; <STDIN> };
my %slugs;     # page -> { id -> 1 }
my $bad = 0;

sub lines_outside_code {   # (line number, text) of each line outside fenced code blocks
  my ($path) = @_;
  local $/ = "\n";
  open my $fh, "<:encoding(UTF-8)", $path or die "$path: $!\n";
  my ($fence, @out) = (undef);
  while (my $line = <$fh>) {
    chomp $line;
    if ($line =~ /^\s*(```+|~~~+)/) {
      my $mark = substr($1, 0, 3);
      if (!defined $fence) { $fence = $mark } elsif ($mark eq $fence) { undef $fence }
      next;
    }
    push @out, [$., $line] unless defined $fence;
  }
  return @out;
}

sub heading_ids {   # GitHub: lower case, punctuation dropped, spaces to "-", repeats numbered
  my ($path) = @_;
  return $slugs{$path} if $slugs{$path};
  my (%ids, %seen);
  for my $entry (lines_outside_code($path)) {
    next unless $entry->[1] =~ /^#{1,6}\s+(.*?)\s*#*\s*$/;
    my $text = $1;
    $text =~ s/\[([^\]]*)\]\([^)]*\)/$1/g;
    my $id = lc $text;
    $id =~ s/[^\p{L}\p{N}_\- ]//g;
    $id =~ s/ /-/g;
    my $n = $seen{$id}++;
    $ids{$n ? "$id-$n" : $id} = 1;
  }
  return $slugs{$path} = \%ids;
}

for my $file (@files) {
  for my $entry (lines_outside_code($file)) {
    my ($number, $line) = @$entry;
    $line =~ s/`[^`]*`//g;
    my @targets = ($line =~ /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g);
    push @targets, $1 if $line =~ /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/;
    push @targets, ($line =~ /<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi);
    for my $target (@targets) {
      my $reason;
      my ($path, $anchor) = $target =~ /^([^#]*)(?:#(.*))?$/;
      if ($target =~ /^[a-z][a-z0-9+.-]*:/i) {
        $reason = "leaves the repository";
      } elsif ($path =~ m{^/}) {
        $reason = "an absolute path";
      } else {
        my $resolved = length $path ? File::Spec->canonpath(dirname($file) . "/$path") : $file;
        1 while $resolved =~ s{(^|/)(?!\.\./)[^/]+/\.\.(/|$)}{$1}g;
        $resolved =~ s{^\./}{};
        if ($resolved =~ m{^\.\.(/|$)}) {
          $reason = "climbs out of the repository";
        } elsif (!-e $resolved) {
          $reason = "no such file";
        } elsif (defined $anchor && length $anchor && $resolved =~ /\.md$/ && -f $resolved
                 && !heading_ids($resolved)->{lc $anchor}) {
          $reason = "no heading #$anchor in $resolved";
        }
      }
      next unless $reason;
      print "$file:$number: $target: $reason\n";
      $bad++;
    }
  }
}
if ($bad) { print STDERR "check-links: $bad bad link(s)\n"; exit 1 }
print "check-links: every link in " . scalar(@files) . " Markdown files resolves inside the repository\n";
'
