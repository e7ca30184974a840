#!/usr/bin/python3
"""Power cuts that lose what was not flushed (see power-cut.sh, which builds and calls this).

usage: power_log.py N [SEED] [--reuse DIR]
  N crash states (at least 2), SEED for the choice of them; --reuse: the sticks, disks and
  recorded run a failed run kept in DIR (it prints the folder), with no new run in the box

One boot of the box runs guest/power-log.sh: the library's ext4 disk sits under dm-log-writes,
which records every write, flush and FUA the disk was given, in order of completion, on a
second disk; marks in that log say where each operation started and where each save was
acknowledged. Then, on the host, crash states are rebuilt from the log: the disk as a power
cut would leave it at a point of the log, where everything before the last flush (and every
FUA write) is on the disk, and of the writes since, any subset is (each write cut in 4 KB
pieces, so a part of a write can be there without the rest: the card's cache lost and
reordered them). Half the states are at flush points (every write before them on the disk),
half at random points between with a random subset kept. Each state must be:

- clean for `e2fsck -fn` (after the journal is replayed, as the board's mount does);
- a whole library: `segmance library check` exits 0 (its recovery of a cut import's
  leftovers is not damage), each routine absent or one version byte for byte (the host's
  reference imports), the media files the reference's bytes;
- holding, for each thing saved (a routine, the settings, the resume point, a part's loop,
  the parts made on the box with their named loops and moves), the value last acknowledged
  before that point, or one of an operation under way there.

The run fails when a phase or a kind of save (each edit made on the box: a split, a move
added, a named loop added, a rename) acknowledged nothing or the daemon never made its 30 s
resume save. Ends with "N crash states, D damaged"; exit status 1 when D > 0.
"""
import bisect, json, os, random, re, shutil, struct, subprocess, sys, tempfile, time
from decimal import Decimal, ROUND_HALF_UP
from dataclasses import dataclass
from typing import Callable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import power_cut  # noqa: E402  (the sticks, the reference imports, the settings of save k)
from power_cut import TITLES, SETTING_KEYS, settings_of, settings_line, resume_key  # noqa: E402

SEGMANCE = power_cut.SEGMANCE
RATE = 48_000
DISK_MB = 64
LOG_MB = 1024
PIECE = 4096
PHASES = ("import", "settings", "reimport", "remove", "daemon", "making")
# Parts a routine may have once the box split it (the loops of each are judged).
MAX_PARTS = 8

# dm-log-writes' log (drivers/md/dm-log-writes.c): a super block, then per entry a header
# block (sector, nr_sectors, flags, data_len; a mark's name inline) and its data.
FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
LOG_MAGIC = 0x6a736677736872


@dataclass
class Entry:
    flags: int
    sector: int        # on the data disk, in blocks of the log's sector size
    count: int
    data: int          # byte offset of its data in the log file
    mark: Optional[str] = None


def read_log(path):
    """The entries of a dm-log-writes log file, and its sector size."""
    with open(path, "rb") as f:
        magic, version, entries, size = struct.unpack("<QQQI", f.read(28))
        if magic != LOG_MAGIC or version != 1:
            sys.exit(f"power-log: {path}: not a dm-log-writes log (magic {magic:#x}, version {version})")
        out, at = [], size
        for _ in range(entries):
            f.seek(at)
            block = f.read(size)
            sector, count, flags, length = struct.unpack("<QQQQ", block[:32])
            entry = Entry(flags, sector, count, at + size)
            if flags & MARK:
                entry.mark = block[32:32 + length].decode()
                count = 0
            out.append(entry)
            at += size + (0 if flags & DISCARD else count * size)
    return out, size


# ---- Save kinds -------------------------------------------------------------------------
# Each thing the library saves that a cut must not lose: how a line of the run names its
# value (an operation under way or acknowledged), and how a found library shows it. To add
# one (Tests/System/README.md, "Adding a save kind"): a SaveKind here, and the guest's
# phase that makes the saves (guest/power-log.sh, "ADD A SAVE KIND HERE").

@dataclass
class SaveKind:
    name: str
    # (line) -> [(key, value, acknowledged?)]: what the line says was started or saved.
    parse: Callable[[str], list]
    # (library as found) -> {key: value} for every key of this kind, None where absent.
    found: Callable[[dict], dict]
    # An edit of the box's parts (old, new) -> whether the save made it: a kind that must be
    # acknowledged by a save of that edit, not by any save of its keys.
    edit: Optional[Callable[[list, list], bool]] = None


def parse_cli_settings(line):
    if m := re.match(r"(op|ack) settings (\d+)$", line):
        return [("settings", settings_of(int(m.group(2))), m.group(1) == "ack")]
    return []


def parse_cli_resume(line):
    if m := re.match(r"(op|ack) resume (\d+)$", line):
        return [("resume", resume_key(TITLES[0], 1, int(m.group(2))), m.group(1) == "ack")]
    if m := re.match(r"(op|ack) resume (\w+) (\d+) (\d+)$", line):
        return [("resume", resume_key(m.group(2), int(m.group(3)), int(m.group(4))), m.group(1) == "ack")]
    return []


def parse_daemon_settings(line):
    if m := re.match(r"(saving|saved): settings (.*)$", line):
        return [("settings", settings_line(m.group(2)), m.group(1) == "saved")]
    return []


def parse_daemon_resume(line):
    if m := re.match(r"(saving|saved): resume \"(.*)\" part (\d+) \".*\" frame (\d+)$", line):
        return [("resume", resume_key(m.group(2), int(m.group(3)), int(m.group(4))), m.group(1) == "saved")]
    return []


def loop_key(routine, part):
    return f"loop {routine}/{part}"


def ms(seconds):
    """Milliseconds as `library list --json` rounds them (Swift's `rounded()`: ties away from zero)."""
    return int(Decimal(seconds * 1000).quantize(Decimal(1), ROUND_HALF_UP))


def shown_seconds(frames):
    """Frames as `library list --json` shows them: seconds, to the millisecond."""
    return ms(frames / RATE) / 1000


def parse_daemon_loop(line):
    if m := re.match(r"(saving|saved): loop \"(.*)\" part (\d+) frames (\d+)-(\d+)$", line):
        value = (ms(int(m.group(4)) / RATE), ms(int(m.group(5)) / RATE))
    elif m := re.match(r"(saving|saved): loop \"(.*)\" part (\d+) (frames cleared|the stick's again)$", line):
        value = None
    else:
        return []
    return [(loop_key(m.group(2), int(m.group(3))), value, m.group(1) == "saved")]


def parse_routines(line):
    if m := re.match(r"op import ([ab])$", line):
        return [(t, m.group(1), False) for t in TITLES]
    if m := re.match(r"import ([ab]): (\w+): (added|replaced|unchanged)$", line):
        # A changed stick's parts play: the box's go to a routine of their own.
        kept = [] if m.group(3) == "unchanged" else [(parts_key(m.group(2)), None, True)]
        return [(m.group(2), m.group(1), True)] + kept
    if m := re.match(r"(op|ack) remove(?:d)? (\w+)$", line):
        # The resume point and the part's loops go with their routine.
        acked, title = m.group(1) == "ack", m.group(2)
        gone = [(title, None, acked), (parts_key(title), None, acked)]
        gone += [(loop_key(title, p), None, acked) for p in range(1, MAX_PARTS + 1)]
        return gone + ([("resume", None, acked)] if title == TITLES[0] else [])
    return []


def found_settings(lib):
    s = lib["settings"]
    s = {k: s[k] for k in SETTING_KEYS if k in s} if isinstance(s, dict) else s
    return {"settings": s or None}


def found_resume(lib):
    r = lib["resume"]
    return {"resume": None if r is None else resume_key(r.get("routine"), r.get("part"), r.get("frame"))
            if isinstance(r, dict) else ("unreadable", r)}


def found_loops(lib):
    out = {}
    for title in TITLES:
        entry = lib["routines"].get(title)
        for p in range(1, MAX_PARTS + 1):
            loop = None
            if entry and p <= len(entry.get("parts", [])) and entry["parts"][p - 1].get("loop"):
                loop = (ms(entry["parts"][p - 1]["loop"]["a"]), ms(entry["parts"][p - 1]["loop"]["b"]))
            out[loop_key(title, p)] = loop
    return out


# ---- The box's parts (docs/controls.md, "Making on the box") ----------------------------
# A routine's parts made on the box, as compared: per part (title, audio, ("cut", from, to,
# frames) or ("whole", frames), its named loops (name, A, B in frames), its moves (type,
# name, cue in seconds as listed)); None while the stick's parts play. The loop in force of
# each part is a loop key of its own (found_loops), which a save of the parts sets too.

def parts_key(routine):
    return f"box parts {routine}"


# Where the stick's parts equal a value, the routine has no parts of the box's to show:
# filled by main() from the reference imports, {title: [parts of stick a, of stick b]}.
STICK_PARTS = {}


def listed_parts(entry):
    """A `library list --json` entry's parts as compared."""
    out = []
    for part in entry.get("parts", []):
        span = ("whole", part["frames"]) if part.get("from") is None \
            else ("cut", part["from"], part["to"], part["frames"])
        out.append((part["title"], part["audio"], span,
                    tuple((n["name"], n["aFrame"], n["bFrame"]) for n in part.get("loops", [])),
                    tuple((m["type"], m["name"], m.get("at")) for m in part.get("moves", []))))
    return out


TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|;|[^\s;]+')


def saved_parts(text):
    """The parts of the daemon's `parts "R" made on the box: …: PART; PART` (Appliance.describe):
    [(part as compared, its loop in force in ms or None)]."""
    parts, tokens = [], TOKEN.findall(text)
    while tokens:
        title, audio, how = json.loads(tokens[0]), tokens[1], tokens[2]
        a, b = map(int, tokens[3].split("-")) if how == "cut" else (0, int(tokens[3]))
        span = ("cut", shown_seconds(a), shown_seconds(b), b - a) if how == "cut" else ("whole", b)
        loop, named, moves, i = None, [], [], 4
        while i < len(tokens) and tokens[i] != ";":
            if tokens[i] == "loop":
                x, y = map(int, tokens[i + 1].split("-"))
                loop, i = (ms(x / RATE), ms(y / RATE)), i + 2
            elif tokens[i] == "named":
                x, y = map(int, tokens[i + 2].split("-"))
                named.append((json.loads(tokens[i + 1]), x, y))
                i += 3
            elif tokens[i] == "move":
                cue = None if tokens[i + 4] == "none" else shown_seconds(int(tokens[i + 4]))
                moves.append((json.loads(tokens[i + 1]), json.loads(tokens[i + 2]), cue))
                i += 5
            else:
                raise ValueError(f"power-log: a part's save line I cannot read at {tokens[i]!r}: {text}")
        parts.append(((title, audio, span, tuple(named), tuple(moves)), loop))
        tokens = tokens[i + 1:]
    return parts


def parse_daemon_parts(line):
    m = re.match(r"(saving|saved): parts \"(.*?)\" made on the box: \d+ parts, \d+ moves, \d+ named loops: (.*)$", line)
    if not m:
        return []
    routine, acked, parts = m.group(2), m.group(1) == "saved", saved_parts(m.group(3))
    value = [p for p, _ in parts]
    said = [(parts_key(routine), None if value in STICK_PARTS.get(routine, []) else value, acked)]
    return said + [(loop_key(routine, p), parts[p - 1][1] if p <= len(parts) else None, acked)
                   for p in range(1, MAX_PARTS + 1)]


def found_parts(lib):
    return {parts_key(t): lib["boxParts"].get(t) for t in TITLES}


def split_made(old, new):
    """One part became two adjacent cuts of its audio, the first keeping its title."""
    return len(new) == len(old) + 1 and any(
        old[:i] == new[:i] and old[i + 1:] == new[i + 2:] and new[i][0] == old[i][0]
        and new[i][1] == new[i + 1][1] == old[i][1] and new[i][2][0] == new[i + 1][2][0] == "cut"
        and new[i][2][2] == new[i + 1][2][1] for i in range(len(old)))


def one_part_changed(old, new, field):
    """The same parts but one, whose `field` (3 named loops, 4 moves) grew by one item."""
    if len(old) != len(new):
        return False
    changed = [(o, n) for o, n in zip(old, new) if o != n]
    return len(changed) == 1 and len(changed[0][1][field]) == len(changed[0][0][field]) + 1 \
        and changed[0][0][:field] == changed[0][1][:field]


def renamed(old, new):
    changed = [(o, n) for o, n in zip(old, new) if o != n]
    return len(old) == len(new) and len(changed) == 1 and changed[0][0][1:] == changed[0][1][1:]


SAVE_KINDS = [
    SaveKind("routines", parse_routines, lambda lib: {t: lib["versions"].get(t) for t in TITLES}),
    SaveKind("settings (library settings)", parse_cli_settings, found_settings),
    SaveKind("resume (library resume)", parse_cli_resume, found_resume),
    SaveKind("settings (daemon)", parse_daemon_settings, found_settings),
    SaveKind("resume (daemon)", parse_daemon_resume, found_resume),
    SaveKind("loops (daemon)", parse_daemon_loop, found_loops),
    SaveKind("parts split (daemon)", parse_daemon_parts, found_parts, split_made),
    SaveKind("move added (daemon)", parse_daemon_parts, found_parts, lambda o, n: one_part_changed(o, n, 4)),
    SaveKind("named loop added (daemon)", parse_daemon_parts, found_parts, lambda o, n: one_part_changed(o, n, 3)),
    SaveKind("part renamed (daemon)", parse_daemon_parts, found_parts, renamed),
    # ADD A SAVE KIND HERE
]
# ------------------------------------------------------------------------------------------


def events_of(console):
    """The run's judged lines: mark name -> (text, [(key, value, acknowledged?)])."""
    events = {}
    for line in console:
        if m := re.match(r"\[cut\] ([LD]\d+) (.*)$", line):
            text = m.group(2)
            said = [s for parse in dict.fromkeys(kind.parse for kind in SAVE_KINDS) for s in parse(text)]
            events[m.group(1)] = (text, said)
    return events


def allowed_at(p, timeline):
    """What each key may hold at log point p: the value last acknowledged before p, what an
    operation started before p and not acknowledged was writing, and the next "saving:" of
    the daemon after p before the next operation (its mark is set when the line is read, maybe
    after the write began)."""
    acked, pending, later, ended = {}, {}, {}, False
    for index, text, said in timeline:
        if index < p:
            if text.startswith("op "):
                pending = {}
            for key, value, ack in said:
                if ack:
                    acked[key] = value
                    pending.pop(key, None)
                else:
                    pending[key] = value
        elif text.startswith("op "):
            ended = True   # the operation under way at p has ended: no later line is its
        elif text.startswith("saving:") and not ended:
            for key, value, _ in said:
                later.setdefault(key, value)
    keys = set(acked) | set(pending) | set(later)
    return {k: [acked.get(k)] + [v for v in (pending.get(k, acked.get(k)), later.get(k, acked.get(k)))
                                 if v != acked.get(k)] for k in keys}


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def normalized(entry):
    """A routine's listing without what the box may set on it (its loops)."""
    entry = json.loads(json.dumps(entry))
    for part in entry.get("parts", []):
        part.pop("loop", None)
        part.pop("stickLoop", None)
    return entry


def stick_version(title, entry, refs):
    """The stick (a or b) whose import the routine is: its rows equal the reference's, or it
    plays parts made on the box of that import's audio (the parts themselves are judged as a
    save: found_parts)."""
    if title not in TITLES:
        return "?"
    for s in "ab":
        if normalized(refs[(title, s)]) == normalized(entry):
            return s
    def fields(e):
        return {k: v for k, v in e.items() if k not in ("parts", "seconds")}
    for s in "ab":
        ref = refs[(title, s)]
        if fields(ref) == fields(entry) and entry.get("parts") \
                and {p["audio"] for p in entry["parts"]} <= {p["audio"] for p in ref["parts"]}:
            return s
    return "?"


def examine(image, mnt, refs, ref_media):
    """Problems of the file system and library in `image` (changed: it is a scratch copy),
    and the library as found."""
    problems = []
    run(["e2fsck", "-E", "journal_only", "-y", image])   # the journal replay a mount does
    fsck = run(["e2fsck", "-fn", image])
    if fsck.returncode != 0:
        problems.append("e2fsck -fn: " + " | ".join(l for l in fsck.stdout.splitlines()[1:] if l.strip())[:600])
    mounted = run(["mount", "-o", "loop", image, mnt])
    if mounted.returncode != 0:
        return problems + [f"mount: {mounted.stderr.strip()}"], None
    try:
        lib = f"{mnt}/library"
        found = {"routines": {}, "versions": {}, "boxParts": {}, "settings": None, "resume": None}
        if not os.path.exists(f"{lib}/library.sqlite"):
            return problems, found   # before the first import's database reached the disk
        check = run([SEGMANCE, "library", "check", "--library", lib])
        if check.returncode != 0:
            problems.append("library check: " + " | ".join((check.stdout + check.stderr).split("\n"))[:600])
        for key, args in (("list", ["list"]), ("settings", ["settings"]), ("resume", ["resume"])):
            out = run([SEGMANCE, "library", *args, "--json", "--library", lib])
            try:
                found[key] = json.loads(out.stdout) if out.returncode == 0 else ("failed", out.stderr.strip())
            except ValueError:
                found[key] = ("unreadable", out.stdout.strip())
        if not isinstance(found["list"], list):
            problems.append(f"library list: {found['list']}")
            found["list"] = []
        for entry in found["list"]:
            title = entry.get("title")
            found["routines"][title] = entry
            version = stick_version(title, entry, refs)
            found["versions"][title] = version
            if version != "?" and normalized(refs[(title, version)]) != normalized(entry):
                found["boxParts"][title] = listed_parts(entry)
            if version == "?":
                problems.append(f"routine {title!r}: neither version's rows: {json.dumps(entry)[:300]}")
        media = f"{lib}/media"
        for name in sorted(os.listdir(media)) if os.path.isdir(media) else []:
            if name.endswith(".pcm"):
                digest = run(["sha256sum", f"{media}/{name}"]).stdout.split()[0]
                if ref_media.get(name) != digest:
                    problems.append(f"media {name}: its bytes are not what the import wrote")
        return problems, found
    finally:
        run(["umount", mnt])


def judge(found, allowed):
    problems, values = [], {}
    for kind in SAVE_KINDS:
        values.update(kind.found(found))
    for key, value in values.items():
        ok = allowed.get(key, [None])
        if value not in ok:
            problems.append(f"{key}: {json.dumps(value)}, expected one of {json.dumps(ok)}")
    return problems


def shown(value):
    return json.dumps(value["volume"] if isinstance(value, dict) and "volume" in value else value)


def main():
    if len(sys.argv) < 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 2 or sys.argv[-1] == "--reuse":
        sys.exit(__doc__)
    args = sys.argv[1:]
    reuse = args[args.index("--reuse") + 1] if "--reuse" in args else None
    if reuse:
        del args[args.index("--reuse"):args.index("--reuse") + 2]
    states = int(args[0])
    seed = int(args[1]) if len(args) > 1 else random.SystemRandom().randrange(1 << 32)
    print(f"power-cut: seed {seed} (replay: Tests/System/power-cut.sh {states} {seed})", flush=True)
    rng = random.Random(seed)
    work = reuse or tempfile.mkdtemp(prefix="segmance-powerlog.", dir="/tmp")
    t0 = time.monotonic()
    disk, log_disk, console = f"{work}/library.img", f"{work}/log.img", f"{work}/console.log"
    if not reuse:
        power_cut.make_sticks(work, long_part=40)
    for name in os.listdir(work):
        if name.startswith("reference-"):
            shutil.rmtree(f"{work}/{name}")
    refs, ref_media = power_cut.reference(work)
    for title in TITLES:
        STICK_PARTS[title] = [listed_parts(refs[(title, s)]) for s in "ab"]
    if not reuse:
        for path, mb in ((disk, DISK_MB), (log_disk, LOG_MB)):
            with open(path, "wb") as f:
                f.truncate(mb << 20)
        subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "library", disk], check=True)
        shutil.copy(disk, f"{work}/base.img")
    print(f"power-cut: sticks, reference imports and the disks in {work} ({time.monotonic() - t0:.1f} s)", flush=True)

    b0 = time.monotonic()
    box = [f"{HERE}/boxrun", "--timeout", "1200", "--mem", "1024", "--disk", disk, "--disk", log_disk,
           "--log", console, "--", "bash", f"{HERE}/guest/power-log.sh"]
    env = dict(os.environ, SEGMANCE_CUT_BIN=SEGMANCE, SEGMANCE_CUT_WORK=work)
    status = 0 if reuse else subprocess.run(box, env=env, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.STDOUT).returncode
    with open(console, errors="replace") as f:
        lines = [re.sub(r"^\[ *[0-9.]+\] ", "", l.rstrip("\n")) for l in f]
    if status != 0 or "[log] done" not in lines:
        print(f"power-cut: the recorded run failed (status {status}); console: {console}")
        sys.exit(1)
    entries, sector = read_log(log_disk)
    marks = {e.mark: i for i, e in enumerate(entries) if e.mark}
    if len(marks) != sum(1 for e in entries if e.mark):
        sys.exit(f"power-cut: a mark name is in the log twice; console: {console}")
    events = events_of(lines)
    missing = [name for name in events if name not in marks]
    if missing:
        sys.exit(f"power-cut: marks printed but not in the log: {missing[:5]}; console: {console}")
    timeline = sorted((marks[name], text, said) for name, (text, said) in events.items())
    writes = [i for i, e in enumerate(entries) if not e.flags & MARK and not e.flags & DISCARD and e.count]
    flushes = [i for i, e in enumerate(entries) if e.flags & FLUSH]
    print(f"power-cut: the run in {time.monotonic() - b0:.0f} s: {len(entries)} log entries, {len(writes)} writes "
          f"({sum(entries[i].count for i in writes) * sector >> 20} MB), {len(flushes)} flushes, "
          f"{len(timeline)} marked lines", flush=True)

    # Every phase and every kind of save acknowledged something; the daemon made its 30 s resume save.
    # An edit's kind counts when an acknowledged save of a routine's box parts made that edit
    # of the parts acknowledged before (the stick's while none were).
    phase, acks, kinds = None, {p: 0 for p in PHASES}, {kind.name: 0 for kind in SAVE_KINDS}
    acked = {}
    for _, text, said in timeline:
        if text.startswith("phase "):
            phase = text.split()[1]
        elif phase in acks and any(ack for _, _, ack in said):
            acks[phase] += 1
        for kind in SAVE_KINDS:
            saves = [(key, value) for key, value, ack in kind.parse(text) if ack]
            if kind.edit is None:
                kinds[kind.name] += bool(saves)
                continue
            for key, value in saves:
                if key.startswith("box parts "):
                    title = key[len("box parts "):]
                    stick = STICK_PARTS[title][0 if acked.get(title, "a") == "a" else 1]
                    kinds[kind.name] += kind.edit(acked.get(key) or stick, value or stick)
        for key, value, ack in said:
            if ack:
                acked[key] = value
    # Saved while playing, 30 s after the save at the part's start (the loop and pause come after 32 s).
    thirty = [t for _, t, _ in timeline if (m := re.match(r"saved: resume .* frame (\d+)$", t))
              and 30 * RATE <= int(m.group(1)) < 31 * RATE]
    print("power-cut: acknowledged by phase: " + ", ".join(f"{p} {n}" for p, n in acks.items())
          + "; by kind: " + ", ".join(f"{k} {n}" for k, n in kinds.items())
          + f"; the 30 s resume save: {thirty[0] if thirty else 'none'}", flush=True)
    if not all(acks.values()) or not all(kinds.values()) or not thirty:
        print(f"power-cut: a phase or a kind of save acknowledged nothing, or the 30 s save is missing: "
              f"console {console}")
        sys.exit(1)

    # The crash points: half at flushes, half between with a random subset kept; the end.
    start = marks["L1"]
    at_flush = [f + 1 for f in flushes if f > start]
    chosen = sorted(rng.sample(at_flush, min(len(at_flush), states // 2)))
    points = [(p, None) for p in chosen]
    while len(points) < states - 1:
        points.append((rng.randrange(start + 1, len(entries)), rng.random()))
    points.append((len(entries), None))
    points.sort(key=lambda pt: pt[0])

    scratch = tempfile.mkdtemp(prefix="segmance-powerlog.", dir="/dev/shm")
    base = f"{scratch}/base.img"
    shutil.copy(f"{work}/base.img", base)
    state_img, mnt = f"{scratch}/state.img", f"{scratch}/mnt"
    os.makedirs(mnt)
    logf = open(log_disk, "rb")
    basef = open(base, "r+b")

    def put(f, e, pieces=None):
        size = e.count * sector
        for off in range(0, size, PIECE) if pieces is None else pieces:
            logf.seek(e.data + off)
            f.seek(e.sector * sector + off)
            f.write(logf.read(min(PIECE, size - off)))

    write_set = set(writes)
    durable_to, damaged, c0 = 0, 0, time.monotonic()
    for n, (p, keep) in enumerate(points):
        last_flush = flushes[bisect.bisect_left(flushes, p) - 1] if flushes and flushes[0] < p else -1
        # The base holds every write before the last flush (in log order): advance it.
        for i in range(durable_to, max(durable_to, last_flush)):
            if i in write_set:
                put(basef, entries[i])
        durable_to = max(durable_to, last_flush)
        basef.flush()
        shutil.copyfile(base, state_img)
        kept = 0
        with open(state_img, "r+b") as f:
            for i in range(max(last_flush, 0), p):
                e = entries[i]
                if e.flags & MARK or e.flags & DISCARD or not e.count:
                    continue
                if keep is None or e.flags & FUA:
                    put(f, e)
                    kept += 1
                else:
                    pieces = [o for o in range(0, e.count * sector, PIECE) if rng.random() < keep]
                    put(f, e, pieces)
                    kept += bool(pieces)
        problems, found = examine(state_img, mnt, refs, ref_media)
        if found is not None:
            problems += judge(found, allowed_at(p, timeline))
        where = next((t for i, t, _ in reversed(timeline) if i < p), "start")
        if problems:
            damaged += 1
            keep_img = f"{work}/damaged-{n}.img"
            shutil.copyfile(state_img, keep_img)
            print(f"power-cut: state {n + 1} (entry {p}, after \"{where}\", "
                  f"{'flush point' if keep is None else f'{kept} unflushed writes kept'}): DAMAGED: "
                  + "; ".join(problems) + f" (disk: {keep_img})", flush=True)
        elif n % 50 == 0 or n == len(points) - 1:
            print(f"power-cut: state {n + 1}/{len(points)} whole (entry {p}, after \"{where}\")", flush=True)
    took = time.monotonic() - c0
    between = sum(1 for _, keep in points if keep is not None)
    print(f"power-cut: {len(points) - between - 1} states at flush points (of {len(at_flush)}), {between} between "
          f"flushes with unflushed writes lost, and the end", flush=True)
    print(f"power-cut: {len(points)} states checked in {took:.0f} s ({took / len(points):.2f} s a state); "
          f"{time.monotonic() - t0:.0f} s in all; seed {seed}", flush=True)
    print(f"{len(points)} crash states, {damaged} damaged", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    if damaged == 0 and not reuse:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"power-cut: console, log and damaged disks kept in {work}")
    sys.exit(1 if damaged else 0)


if __name__ == "__main__":
    main()
