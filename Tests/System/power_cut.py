#!/usr/bin/python3
"""The power-cut run of the board in a box (see power-cut.sh, which builds and calls this).

usage: power_cut.py N [SEED]    (SEGMANCE_CUT_WORKLOADS=import,reimport,settings,daemon: which workloads)

Each boot of the box mounts the library's own disk (an ext4 image file, /dev/vda), shows
what the library holds (guest/power-cut.sh's "[state]" lines), then runs a workload (an
import, a re-import, saving settings and the resume point with `segmance library`, or the
daemon itself saving them as buttons are pressed) until the power is cut at a random moment
(qemu killed). The next boot judges what it finds against what the previous
one acknowledged before the cut (its "[cut]" lines): the library must be whole
(`segmance library check`), every routine absent or exactly one version of it (its rows and
its media, byte for byte, as a reference import on the host made them), and every write
acknowledged before the cut still there: an import's routine, the settings (all the keys of
one save: the last acknowledged or the one under way), the resume point. The daemon's saves
are known from its log: "saving: …" before each write, "saved: …" once it is durable. N cuts take N + 1
boots. Ends with "N cuts, D damaged"; the exit status is 1 when D > 0.
"""
import hashlib, json, math, os, random, re, shutil, subprocess, sys, tempfile, time, wave

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SEGMANCE = os.environ.get("SEGMANCE_CUT_BIN") or os.path.join(REPO, ".build/debug/segmance")
TITLES = ["Alpha", "Bravo", "Charlie"]
# Cut this long after the workload starts (s): wide enough to land anywhere in an import of
# a stick (several seconds in the box) or among many small saves.
CUT_WINDOW = {"import": (0.1, 8.0), "reimport": (0.1, 8.0), "settings": (0.1, 4.0), "daemon": (0.1, 10.0)}
# SEGMANCE_CUT_WORKLOADS=import,reimport: only those (to aim the cuts at one thing).
WORKLOADS = [w for w in os.environ.get("SEGMANCE_CUT_WORKLOADS", "import,reimport,settings,daemon").split(",") if w]
COUNTDOWN = [0, 3, 5, 8, 10, 15, 20]
PAUSE = [0, 1, 2, 3, 4, 5, 8, 10]
PASSES = [0, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20]
IDLE = [0, 30, 60, 120, 300, 600]


def settings_of(k):
    """The settings guest/power-cut.sh saves as its k-th save (as `library settings --json` shows them)."""
    return {"volume": str(k % 101), "countdown": str(COUNTDOWN[k % 7]), "loopPause": str(PAUSE[k % 8]),
            "loopPasses": str(PASSES[k % 11]), "lightIdle": str(IDLE[k % 6]),
            "countdownBeforeRepeat": str(k % 2), "autoImport": str(k // 2 % 2),
            "atPartEnd": ["stop", "next"][k // 4 % 2]}


SETTING_KEYS = ("volume", "countdown", "loopPause", "loopPasses", "lightIdle", "countdownBeforeRepeat",
                "autoImport", "atPartEnd")


def settings_line(text):
    """The settings of a daemon's "saving: settings K=V …" line, as `library settings --json` shows them."""
    pairs = dict(pair.split("=", 1) for pair in text.split())
    return {k: pairs[k] for k in SETTING_KEYS if k in pairs}


def resume_key(routine, part, frame):
    """A resume point as compared: routine, part (from 1) and frame."""
    return f"{routine}/{part}/{frame}"


def settings_name(settings, near):
    """How a found settings value is printed: the k of the settings workload's save, or its volume."""
    if settings is None:
        return "none"
    k = next((k for k in range(max(0, near - 3), near + 3) if settings_of(k) == settings), None)
    return f"#{k}" if k is not None else f"volume {settings.get('volume')}"


def write_tone(path, seconds, frequency, rate=44_100):
    """A 16-bit stereo WAV of a tone, the right channel a fifth above the left."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    frames = bytearray()
    for n in range(int(seconds * rate)):
        left = int(12_000 * math.sin(2 * math.pi * frequency * n / rate))
        right = int(9_000 * math.sin(2 * math.pi * frequency * 1.5 * n / rate))
        frames += left.to_bytes(2, "little", signed=True) + right.to_bytes(2, "little", signed=True)
    with wave.open(path, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(bytes(frames))


def make_sticks(work, long_part=0):
    """Sticks a and b: the same three routines (same part titles and lengths), other audio;
    with `long_part`, Alpha has a third part of that many seconds."""
    for stick, base in (("a", 330.0), ("b", 415.0)):
        for i, title in enumerate(TITLES):
            write_tone(f"{work}/stick-{stick}/{title}/01 Intro.wav", 1.5 + i / 2, base * (1 + i / 4))
            write_tone(f"{work}/stick-{stick}/{title}/02 Main.wav", 3, base * (1 + i / 4) * 1.25)
        if long_part:
            write_tone(f"{work}/stick-{stick}/{TITLES[0]}/03 Long.wav", long_part, base * 0.75)
    with open(f"{work}/titles", "w") as f:
        f.write(" ".join(TITLES) + "\n")


def reference(work):
    """What an import of each stick makes, on the host: each routine's listing, each media's SHA-256."""
    routines, media = {}, {}
    for stick in "ab":
        lib = f"{work}/reference-{stick}"
        subprocess.run([SEGMANCE, "import", f"{work}/stick-{stick}", "--library", lib],
                       check=True, capture_output=True)
        listed = subprocess.run([SEGMANCE, "library", "list", "--json", "--library", lib],
                                check=True, capture_output=True, text=True).stdout
        for entry in json.loads(listed):
            routines[(entry["title"], stick)] = entry
        for name in os.listdir(f"{lib}/media"):
            with open(f"{lib}/media/{name}", "rb") as f:
                media[name] = hashlib.sha256(f.read()).hexdigest()
    return routines, media


def boot(work, disk, mode, workload, cut_after, env, log):
    """One boot of the box; returns (status, console lines)."""
    cmd = [f"{HERE}/boxrun", "--timeout", "300", "--mem", "1024", "--disk", disk, "--log", log]
    if mode != "check":
        cmd += ["--cut-on", r"^\[cut\] armed$", "--cut-after", f"{cut_after:.3f}"]
    cmd += ["--", "bash", f"{HERE}/guest/power-cut.sh", mode, workload]
    full_env = dict(os.environ, SEGMANCE_CUT_BIN=SEGMANCE, SEGMANCE_CUT_WORK=work, **env)
    status = subprocess.run(cmd, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT).returncode
    with open(log, errors="replace") as f:
        stamped = [l.rstrip("\n") for l in f]
    lines = [re.sub(r"^\[ *[0-9.]+\] ", "", l) for l in stamped]
    armed = next((l.split("]")[0].strip("[ ") for l in stamped if l.endswith("] [cut] armed")), "?")
    return status, lines, armed


def read_state(lines):
    """The library as the guest showed it: check output and status, routines, settings, resume, media."""
    state = {"check": [], "status": None, "list": None, "settings": None, "resume": None, "media": {}, "raw": []}
    inside = False
    for line in lines:
        if line == "[state] begin":
            inside = True
        elif line == "[state] end":
            inside = False
        elif inside and line.startswith("[state] "):
            body = line[len("[state] "):]
            state["raw"].append(body)
            key, _, rest = body.partition(" ")
            if key == "check":
                state["check"].append(rest)
            elif key == "check-status":
                state["status"] = int(rest)
            elif key in ("list", "settings", "resume"):
                try:
                    state[key] = json.loads(rest)
                except ValueError:
                    state[key] = ("unreadable", rest)
            elif key == "media":
                digest, name = rest.split(None, 1)
                state["media"][name] = digest
    return state


def judge(state, allowed, refs, ref_media):
    """The problems of `state` against what may have survived; and the versions found."""
    problems, found = [], {}
    if not state["raw"]:
        return ["the box showed no state (did it boot? see the console log)"], found
    problems += [f"mount: {l}" for l in state["raw"] if l.startswith("mount failed")]
    if state["status"] != 0:
        problems.append("library check failed: " + " | ".join(state["check"]))
    listed = state["list"]
    if not isinstance(listed, list):
        problems.append(f"library list: {listed}")
        listed = []
    present = {entry.get("title"): entry for entry in listed}
    for title in present:
        if title not in TITLES:
            problems.append(f"routine {title!r}: not one the workload imports")
    for title in TITLES:
        entry = present.get(title)
        version = None if entry is None else next((s for s in "ab" if refs[(title, s)] == entry), "?")
        found[title] = version
        if version == "?":
            problems.append(f"routine {title}: neither version's rows: {json.dumps(entry)}")
        elif version not in allowed["routines"][title]:
            problems.append(f"routine {title}: {version or 'absent'}, expected one of "
                            + ", ".join(v or "absent" for v in sorted(allowed["routines"][title], key=str)))
    for name, digest in state["media"].items():
        if ref_media.get(name) != digest:
            problems.append(f"media {name}: its bytes are not what the import wrote")
    # The keys the workloads save (`library settings --json` shows others too, at their defaults).
    settings = state["settings"]
    if isinstance(settings, dict):
        settings = {k: settings[k] for k in SETTING_KEYS if k in settings}
    found["settings"] = settings if settings else None
    if found["settings"] not in allowed["settings"]:
        problems.append(f"settings {json.dumps(settings)}: neither of the saves "
                        + ", ".join(json.dumps(s) for s in allowed["settings"]))
    resume = state["resume"]
    point = None if resume is None else (resume_key(resume.get("routine"), resume.get("part"), resume.get("frame"))
                                         if isinstance(resume, dict) else "?")
    found["resume"] = point
    if point not in allowed["resume"]:
        problems.append(f"resume point {json.dumps(resume)}: expected "
                        + " or ".join(str(f) for f in allowed["resume"]))
    return problems, found


def expect(found, lines, next_k):
    """What may survive the cut of a boot that started from `found` and printed `lines`:
    for each thing, its last acknowledged value, or what the step under way was writing.
    Steps run one after the other and their lines come in order: at a step's "op" line, the
    step before it has ended, and its acknowledgement, if it gave one, came before."""
    acked = {t: found[t] for t in TITLES} | {"settings": found["settings"], "resume": found["resume"]}
    pending = {}
    # The daemon's writes run beside the script's steps: what one has under way is its own.
    daemon = {}
    for line in lines:
        if m := re.match(r"(saving|saved): resume \"(.*)\" part (\d+) \".*\" frame (\d+)$", line):
            value = resume_key(m.group(2), int(m.group(3)), int(m.group(4)))
            if m.group(1) == "saving":
                daemon["resume"] = value
            else:
                acked["resume"] = value
                daemon.pop("resume", None)
        elif m := re.match(r"(saving|saved): settings (.*)$", line):
            value = settings_line(m.group(2))
            if m.group(1) == "saving":
                daemon["settings"] = value
            else:
                acked["settings"] = value
                daemon.pop("settings", None)
        elif line.startswith("not saved (its part is gone): resume"):
            daemon.pop("resume", None)
        if line.startswith("[cut] op "):
            pending = {}
        if m := re.match(r"\[cut\] op import ([ab])$", line):
            pending = {t: m.group(1) for t in TITLES}
        elif m := re.match(r"\[cut\] import ([ab]): (\w+): (added|replaced|unchanged)$", line):
            acked[m.group(2)] = m.group(1)
            pending.pop(m.group(2), None)
        elif m := re.match(r"\[cut\] op remove (\w+)$", line):
            pending[m.group(1)] = None
            if m.group(1) == TITLES[0]:   # the resume point's routine: it goes with it
                pending["resume"] = None
        elif m := re.match(r"\[cut\] ack removed (\w+)$", line):
            acked[m.group(1)] = None
            if m.group(1) == TITLES[0]:
                acked["resume"] = None
            pending = {}
        elif m := re.match(r"\[cut\] op (settings|resume) (\d+)$", line):
            k = int(m.group(2))
            pending[m.group(1)] = settings_of(k) if m.group(1) == "settings" else resume_key(TITLES[0], 1, k)
            next_k = k + 1
        elif m := re.match(r"\[cut\] ack (settings|resume) (\d+)$", line):
            k = int(m.group(2))
            acked[m.group(1)] = settings_of(k) if m.group(1) == "settings" else resume_key(TITLES[0], 1, k)
            pending = {}
    def either(key):
        values = [acked[key]]
        for under_way in (pending, daemon):
            if key in under_way and under_way[key] not in values:
                values.append(under_way[key])
        return values
    return {"routines": {t: set(either(t)) for t in TITLES},
            "settings": either("settings"), "resume": either("resume")}, next_k


def main():
    if len(sys.argv) < 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit(__doc__)
    cuts = int(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else random.SystemRandom().randrange(1 << 32)
    print(f"power-cut: seed {seed} (replay: Tests/System/power-cut.sh {cuts} {seed})", flush=True)
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="segmance-powercut.", dir="/tmp")
    t0 = time.monotonic()
    make_sticks(work)
    refs, ref_media = reference(work)
    disk = f"{work}/library.img"
    with open(disk, "wb") as f:
        f.truncate(64 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "library", disk], check=True)
    print(f"power-cut: sticks, reference imports and the 64 MB ext4 disk in {work} "
          f"({time.monotonic() - t0:.1f} s)", flush=True)

    found = {t: None for t in TITLES} | {"settings": None, "resume": None}
    allowed = None
    next_k, damaged, kinds = 0, 0, {}
    for i in range(cuts + 1):
        mode = "first" if i == 0 else ("check" if i == cuts else "cut")
        workload = rng.choice(WORKLOADS) if mode != "check" else ""
        window = CUT_WINDOW.get(workload, (0, 0))
        cut_after = rng.uniform(*window)
        first = rng.choice("ab")
        log = f"{work}/boot-{i}.log"
        b0 = time.monotonic()
        status, lines, armed = boot(work, disk, mode, workload, cut_after,
                             {"SEGMANCE_CUT_K0": str(next_k), "SEGMANCE_CUT_FIRST": first}, log)
        took = time.monotonic() - b0
        verdict = ""
        if i > 0:
            state = read_state(lines)
            problems, found = judge(state, allowed, refs, ref_media)
            recovered = sum(1 for l in state["check"] if l.startswith("recovered:"))
            shown = " ".join(f"{t}={found[t] or '-'}" for t in TITLES)
            shown += f" settings={settings_name(found['settings'], next_k)} resume={found['resume']}"
            if recovered:
                shown += f", {recovered} leftover{'s' if recovered > 1 else ''} of the cut import removed"
            if problems:
                damaged += 1
                verdict = f"DAMAGED ({shown}): " + "; ".join(problems)
                keep = f"{work}/damaged-{i}.log"
                shutil.copy(log, keep)
                verdict += f" (console: {keep})"
            else:
                verdict = f"whole ({shown})"
            print(f"power-cut: after cut {i}: {verdict}", flush=True)
        if mode == "check":
            if status != 0:
                damaged += 1 if not verdict.startswith("DAMAGED") else 0
                print(f"power-cut: the last boot ended with status {status}", flush=True)
            break
        if status != 137:
            print(f"power-cut: boot {i + 1} ended with status {status} instead of the cut; console: {log}")
            sys.exit(1)
        ops = sum(1 for l in lines if l.startswith(("[cut] op ", "[cut] step ")))
        saves = sum(1 for l in lines if l.startswith("saved: "))
        kinds[workload] = kinds.get(workload, 0) + 1
        print(f"power-cut: cut {i + 1}/{cuts}: {workload}, {cut_after:.2f} s after it started "
              f"(step {ops}: {next((l[6:] for l in reversed(lines) if l.startswith(('[cut] op ', '[cut] step '))), 'none')}"
              + (f", {saves} saves by the daemon" if workload == "daemon" else "") + "; "
              f"boot {took:.1f} s, workload from {armed} s)", flush=True)
        allowed, next_k = expect(found, lines, next_k)
    print(f"power-cut: {', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}; "
          f"{time.monotonic() - t0:.0f} s in all; seed {seed}", flush=True)
    print(f"{cuts} cuts, {damaged} damaged", flush=True)
    if damaged == 0:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"power-cut: consoles and disk kept in {work}")
    sys.exit(1 if damaged else 0)


if __name__ == "__main__":
    main()
