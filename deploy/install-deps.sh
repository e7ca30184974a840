#!/usr/bin/env bash
# Installs the Debian packages Segmance Box needs to build, test and run the simulator
# (Debian 12 bookworm / Raspberry Pi OS bookworm). Safe to run again.
# Extra package names given as arguments are installed too (install-bench-deps.sh).
set -euo pipefail
packages=(
  pkg-config
  libasound2-dev     # ALSA (alsa-lib); its ioplug headers build the paced test PCM (Tests/PacedPCM)
  gcc                # tests only: builds the paced test PCM, an ALSA plugin (Tests/PacedPCM/build.sh)
  libgpiod-dev       # GPIO, libgpiod 1.6 (v1 API)
  libsndfile1-dev    # decoding WAV, FLAC, Ogg, Opus, MP3, AIFF …
  libsoxr-dev        # resampling to the output rate at import
  libaubio-dev       # aubio's beat tracker: a part's beat grid, detected at import
  espeak-ng          # spoken counts (rendered once, cached; the .deb recommends it); the tests' speech samples
  librubberband-dev  # time-stretching, pitch kept (speed 50–150 %); GPL-2+: see docs/speed.md
  libavformat-dev    # FFmpeg: MP4/M4A/MOV, Matroska/WebM, ASF containers (AAC, ALAC, a video's sound, WMA)
  libavcodec-dev     # FFmpeg: their audio decoders
  libavutil-dev      # FFmpeg: its utilities (errors, channel layouts)
  libswresample-dev  # FFmpeg: decoded samples to interleaved float
  ffmpeg             # tests only: the ffmpeg tool makes the M4A, video, MKV and WMA test files
  libsqlite3-dev     # the routine library
  lcdproc            # LCDd, a real display server for the LCDproc client tests
  jackd2             # jackd's dummy backend: a real-time paced sink for the engine tests
  libasound2-plugins # alsa-lib's jack plugin, the PCM the engine tests write to
  time               # GNU time: peak memory of the binary in the hostile-stick tests
  strace             # tests only: the import's fsync and rename order, seen from outside (SyncOrderTests)
  dosfstools exfatprogs ntfs-3g e2fsprogs   # stick images of each file system (the mount helper's plan tests)
  "$@"
)
# From trixie on, jack_wait (the engine tests wait for jackd with it) is in jack-example-tools.
if apt-cache show jack-example-tools >/dev/null 2>&1; then packages+=(jack-example-tools); fi
exec "$(dirname "$0")/apt-install.sh" install-deps "${packages[@]}"
