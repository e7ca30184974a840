#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets into Tests/Fuzz/Corpus (committed; run again
# to remake them). Audio: the shortest files of each format the box reads, made by the
# ffmpeg tool (deploy/install-deps.sh installs it), so that the fuzzer mutates real
# headers. Manifests: routine.toml texts; class sets: class.toml texts. Stick trees: TreeRecipe steps (see
# Sources/FuzzStickScan/TreeRecipe.swift for the encoding).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/Corpus"

# --- audio -----------------------------------------------------------------------------
snd="$corpus/FuzzSndFile" media="$corpus/FuzzFFmpeg"
rm -rf "$snd" "$media"
mkdir -p "$snd" "$media"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y -fflags +bitexact -flags +bitexact "$@"; }
tone() { echo "-f lavfi -i sine=frequency=440:sample_rate=$1:duration=$2"; }
stereo() { echo "-f lavfi -i aevalsrc=sin(440*2*PI*t)|sin(660*2*PI*t):s=$1:d=$2"; }

# libsndfile's formats: a 16-bit 48 kHz stereo WAV takes the copy path, the rest convert.
ff $(stereo 48000 0.01) -c:a pcm_s16le "$snd/stereo48k16.wav"
ff $(tone 44100 0.02) -c:a pcm_s24le "$snd/mono44k24.wav"
ff $(tone 8000 0.05) -c:a pcm_f32le "$snd/float8k.wav"
ff $(tone 8000 0.05) -c:a pcm_u8 "$snd/u8.wav"
ff $(tone 8000 0.05) -c:a adpcm_ima_wav "$snd/imaadpcm.wav"
ff $(tone 8000 0.05) -c:a pcm_s16le -rf64 always "$snd/rf64.wav"
ff $(tone 8000 0.05) -c:a pcm_s16be "$snd/be16.aiff"
ff $(tone 8000 0.05) -c:a pcm_s16be -f au "$snd/be16.au"
ff $(tone 8000 0.05) -c:a pcm_s16le -f w64 "$snd/le16.w64"
ff $(tone 8000 0.05) -c:a pcm_s16le -f caf "$snd/le16.caf"
ff $(tone 8000 0.1) -c:a flac "$snd/tone.flac"
ff $(tone 8000 0.1) -c:a libvorbis -q:a 0 "$snd/tone.ogg"
ff $(tone 8000 0.1) -c:a libopus -b:a 6k "$snd/tone.opus"
ff $(tone 8000 0.1) -c:a libmp3lame -b:a 8k "$snd/tone.mp3"
ff $(tone 8000 0.1) -c:a libmp3lame -b:a 8k -id3v2_version 3 -metadata title=T "$snd/id3.mp3"
# Regression: 2 000 mono frames at 1 Hz (the fuzzer's hang: 96 million frames at 48 kHz).
{ printf 'RIFF\xc4\x0f\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x01\0\0\0\x02\0\0\0\x02\0\x10\0data\xa0\x0f\0\0'
  head -c 4000 /dev/zero; } > "$snd/regression-1hz.wav"

# FFmpeg's: MP4/M4A (index last, index first, fragmented), ALAC, a video's sound, Matroska,
# WebM, WMA, raw ADTS AAC.
ff $(tone 8000 0.1) -c:a aac -b:a 8k "$media/aac.m4a"
ff $(tone 8000 0.1) -c:a aac -b:a 8k -movflags +faststart "$media/faststart.m4a"
ff $(tone 8000 0.1) -c:a aac -b:a 8k -movflags frag_keyframe+empty_moov "$media/fragmented.m4a"
ff $(tone 8000 0.05) -c:a alac "$media/alac.m4a"
ff -f lavfi -i color=size=16x16:rate=5:duration=0.2 $(tone 8000 0.2) -c:v mpeg4 -c:a aac -b:a 8k -shortest "$media/video.mp4"
ff $(tone 8000 0.1) -c:a aac -b:a 8k -f mov "$media/tone.mov"
ff $(tone 8000 0.1) -c:a libvorbis -q:a 0 "$media/vorbis.mkv"
ff $(tone 8000 0.1) -c:a libopus -b:a 6k "$media/opus.webm"
ff $(tone 8000 0.1) -c:a wmav2 -b:a 24k "$media/tone.wma"
ff $(tone 8000 0.1) -c:a aac -b:a 8k -f adts "$media/tone.aac"

# --- routine.toml ---------------------------------------------------------------------
manifests="$corpus/FuzzManifest"
rm -rf "$manifests"
mkdir -p "$manifests"
cat > "$manifests/readme.toml" <<'TOML'
title = "Juggling Act"
subtitle = "Kihoku summer festival"
countdown = 5

[[part]]
title = "Opening"
file = "song.wav"           # one file may be cut into several parts
from = "0:00"
to = "1:05.5"
loop = { a = "0:20", b = "0:32" }
moves = [
  { type = "Juggle", name = "5-ball cascade", note = "face the audience" },
  { type = "Dance", name = "Spin", at = "0:12.5" },   # cue shown on the LCD at 0:12.5
]
TOML
cat > "$manifests/two-parts.toml" <<'TOML'
title = 'Salsa'
[[part]]
file = "01 Intro.flac"
to = 65.5
[[part]]
title = """Second
part"""
file = "sub/b.mp3"
from = "1:00:00.25"
loop = {a = 1, b = 2.5}
moves = [{type = "Turn", at = 00:01:05}]
TOML
cat > "$manifests/toml-edges.toml" <<'TOML'
# every kind of TOML value, each on its line
"quoted key" = 'literal \n'
bare-key_1 = "esc \t \u00E9 \U0001F600 \\"
a.b.c = 1_000
hex = 0xDEAD_beef
oct = 0o755
bin = 0b1101
flt = -1.5e-3
inf = +inf
nan = nan
yes = true
date = 1979-05-27T07:32:00Z
local = 07:32:00.999
arr = [ [1, 2], ["a", 'b'], [], ]
[table.sub]
x = { y = { z = [ {} ] } }
[[table.list]]
[[table.list]]
ml = '''
raw'''
TOML
# What a teacher writes (docs/stick.md) and Save to stick exports.
cat > "$manifests/teacher.toml" <<'TOML'
tittle = "Spring Show"
title = "Spring Show"
[[part]]
title = "Intro"
file = "STREET-JAM.wav"
from = 0
to = 30.5
loops = [{ name = "Hit", a = "0:08", b = "0:16" }, { name = "Eight 2", a = 2.5, b = 4 }]
moves = ["Roll down", "Spin", { name = "Lift", at = "0:12" }]
tempo = 120.00000000000001
one = "-0:00.000020834"
speed = 80
TOML
printf 'title = "\xff\xfe broken utf8"\n' > "$manifests/bad-utf8.toml"
printf '[[part]]\nfile = "a.wav"\nfrom = "9:99"\nto = "-1"\nloop = { a = "0:05", b = "0:01", c = 3 }\nextra = 1\n' > "$manifests/bad-values.toml"

# --- class.toml -----------------------------------------------------------------------
classes="$corpus/FuzzClassFile"
rm -rf "$classes"
mkdir -p "$classes"
# The teacher's guide's example (docs/stick.md), and one with a problem in every key.
cat > "$classes/guide.toml" <<'TOML'
[[class]]
name = "Monday beginners"
gap = "3 s"
announce = true
tracks = [
  "Warm-up Session",
  { routine = "Street Jam", part = 2 },
  "Cool-down",
]
[[class]]
name = "Show run"
gap = 0
tracks = ["Juggling Act"]
TOML
printf '[[class]]\nname = ""\ngap = "soon"\nannounce = 3\ntracks = [1, { routine = "A", part = 0, x = 1 }, ""]\nextra = 1\n[[clas]]\n' > "$classes/bad-values.toml"

# --- stick trees (TreeRecipe) ------------------------------------------------------------
# First byte: which StickLimits (0 the defaults, 1 small, 2 tiny). Then steps, op = byte % 8:
# 0/1 folder NAME (and go in), 2 up, 3/4/5 file NAME LEN16 BYTES[LEN16*16], 6 link TARGET
# NAME, 7 FIFO NAME. NAME: a byte < 224 picks names[byte % 28] (0 routine.toml, 2 a.wav,
# 3 b.mp3, 4 "01 Intro.flac", 15 .DS_Store, 16 ._a.wav, 24 x); a larger one is raw bytes.
trees="$corpus/FuzzStickScan"
rm -rf "$trees"
mkdir -p "$trees"
# file NAME-BYTE TEXT: a file step whose content is TEXT padded with newlines to 16 bytes.
file_step() {
  local text=$2 length
  length=$(( (${#text} + 15) / 16 ))
  printf "\\x03\\x$(printf %02x "$1")\\x$(printf %02x "$length")"
  printf '%s' "$text"
  printf '\n%.0s' $(seq 1 $(( length * 16 - ${#text} )))
}
{ printf '\x00\x00\x18'                     # folder x
  file_step 2 "RIFF....WAVEfmt "            # x/a.wav
  file_step 0 $'title = "T"\n[[part]]\nfile = "a.wav"\nto = 1\n'
} > "$trees/routine-with-manifest"
{ printf '\x01\x00\x18'; file_step 2 "a"; file_step 3 "b"; printf '\x02'
  printf '\x06\x00\x19'                     # link ".." named "routine" at the root: a loop
  printf '\x06\x05\x1a'                     # link "/etc" named "x"
  printf '\x07\x00'                         # FIFO routine.toml at the root
  file_step 16 "junk"; file_step 15 "junk"
} > "$trees/links-and-fifo"
{ printf '\x02'
  for _ in 1 2 3 4 5 6 7; do printf '\x00\x18'; done
  file_step 2 "deep"
} > "$trees/deep"
{ printf '\x00\x00\x18'
  file_step 0 $'[[part]]\nfile = "../../etc/passwd"\n[[part]]\nfile = "/etc/passwd"\n'
  printf '\x06\x06\x02'                     # a.wav -> /etc/passwd
  printf '\x03\xff'; printf 'n%.0s' $(seq 1 254); printf 'z\x01Q'   # a 255-byte name
} > "$trees/escapes"

echo "make-seeds: $(find "$corpus" -type f | wc -l) seeds, $(du -sk "$corpus" | cut -f1) KiB in $corpus"
