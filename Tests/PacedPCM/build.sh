#!/usr/bin/env bash
# Tests/PacedPCM/build.sh OUT: builds the paced test PCM (paced.c, an ALSA I/O plugin) into
# OUT/libasound_module_pcm_segpaced.so and prints its path. The engine tests run it once per
# process; -DPIC: alsa-lib's plugin symbol macros for a shared object. Never instrumented by a sanitizer (alsa-lib, which calls it, is not either).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: Tests/PacedPCM/build.sh OUT}
mkdir -p "$out"
lib="$out/libasound_module_pcm_segpaced.so"
cc=$(command -v cc || command -v clang)
# shellcheck disable=SC2046 # pkg-config's flags are words
"$cc" -std=gnu11 -O2 -Wall -Wextra -Werror -fPIC -DPIC -shared -o "$lib.tmp" "$here/paced.c" \
  $(pkg-config --cflags --libs alsa) -lpthread
mv "$lib.tmp" "$lib"
echo "$lib"
