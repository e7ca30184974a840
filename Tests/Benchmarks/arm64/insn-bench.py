#!/usr/bin/env python3
"""The cost on a Pi's CPU, counted on aarch64: guest instructions of the arm64 `segmance`
under qemu-user (qemu-aarch64 with the plugin insn-threads.c: instructions per guest thread),
running the twin (`segmance sim`: the render function, the control loop's reducer and the
screen as the daemon runs them, in virtual time) on a stick of one 60 s routine, by workload:

  paused     PLAY, then PLAY again at once: the control loop and the LCD's frames only
  play 100%  PLAY, the part playing at 100 % (no stretcher)
  play 75%   PLAY, then the speed set to 75 % (the stretcher runs)

Each workload runs twice, to 5 s and to 25 s of virtual time; the difference over the 20 s
between is the cost per audio second without the start-up (the library, the stick's import,
the stretcher's creation). The twin runs everything on one thread, and renders (silence)
and writes its WAV while paused too, so a workload's figure is an upper bound of each part
it holds: the render thread's cost at a speed is at most the playing workload's whole
figure, the control loop's and LCD's at most the paused one's; the budgets are checked on
those bounds.
Pi estimates: instructions / (IPC x clock), IPC stated beside (no Pi here to measure it).

usage: insn-bench.py --segmance ARM64_BINARY --root ARM64_ROOT --plugin PLUGIN.so
                     [--check] [--write-figures docs/figures.md]
"""
import argparse, datetime, os, shutil, struct, subprocess, sys, tempfile, wave, math

SECTION = "Tests/Benchmarks/arm64/insn-bench.sh"
PI4 = ("Pi 4 (Cortex-A72, 1.5 GHz)", 1.5e9, 1.0)
PI5 = ("Pi 5 (Cortex-A76, 2.4 GHz)", 2.4e9, 1.5)
BUDGETS = {"render at 100 %": 0.02, "render at 75 %": 0.25}   # of one Pi 4 core
T1, T2 = 5.0, 25.0


def make_stick(path):
    folder = os.path.join(path, "Bench")
    os.makedirs(folder)
    with open(os.path.join(folder, "routine.toml"), "w") as f:
        f.write('title = "Bench"\ncountdown = 0\n')
    w = wave.open(os.path.join(folder, "01 Song.wav"), "wb")
    w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
    chunk = bytearray()
    for i in range(48000):
        t = i / 48000
        s = sum(math.sin(2 * math.pi * f * t) for f in (220, 277.2, 329.6)) / 3
        chunk += struct.pack("<hh", int(9000 * s), int(9000 * s * math.cos(2 * math.pi * 0.25 * t)))
    for _ in range(60):
        w.writeframes(bytes(chunk))
    w.close()


def scenario(path, workload, end):
    lines = ["0.5 tap play"]
    if workload == "paused":
        lines.append("1.0 tap play")
    elif workload == "play 75%":
        lines.append("1.0 speed 75")
    lines.append(f"{end} end")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def count(args, stick, work, workload, end):
    sc = os.path.join(work, f"{workload.replace(' ', '-').replace('%', '')}-{end:.0f}.scenario")
    scenario(sc, workload, end)
    log = sc + ".insn"
    cmd = ["qemu-aarch64", "-L", args.root, "-plugin", args.plugin, "-d", "plugin", "-D", log,
           args.segmance, "sim", "--stick", stick, "--scenario", sc, "--wav", sc + ".wav"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    threads = {}
    for line in open(log):
        if line.startswith("insn: "):
            _, tid, name, n = line.split()
            threads[f"{name}"] = threads.get(name, 0) + int(n)
    return threads


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--segmance", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write-figures")
    args = ap.parse_args()
    load_start = open("/proc/loadavg").read().split()[0]
    work = tempfile.mkdtemp(prefix="segmance-insn.")
    stick = os.path.join(work, "stick")
    make_stick(stick)
    per_second, totals = {}, {}
    for workload in ("paused", "play 100%", "play 75%"):
        a, b = count(args, stick, work, workload, T1), count(args, stick, work, workload, T2)
        total_a, total_b = sum(a.values()), sum(b.values())
        per_second[workload] = (total_b - total_a) / (T2 - T1)
        totals[workload] = total_b
        print(f"insn-bench: {workload}: {total_a} instructions to {T1:.0f} s, {total_b} to {T2:.0f} s "
              f"({len(b)} threads: {', '.join(sorted(b))}): {per_second[workload] / 1e6:.2f} M per audio second")
    shutil.rmtree(work, ignore_errors=True)
    rows = []   # what, instructions per audio second, share of a Pi 4 core, budget
    for what, key in (("render at 100 %", "play 100%"), ("render at 75 %", "play 75%")):
        rows.append((what, per_second[key], BUDGETS[what]))
    rows.append(("control loop and LCD", per_second["paused"], None))
    missed = []
    table = []
    for what, n, budget in rows:
        pi4 = n / (PI4[1] * PI4[2])
        pi5 = n / (PI5[1] * PI5[2])
        met = None if budget is None else pi4 <= budget
        if met is False:
            missed.append(f"{what}: {pi4 * 100:.2f} % of a Pi 4 core (budget {budget * 100:.0f} %)")
        table.append((what, n, pi4, pi5, budget, met))
        print(f"insn-bench: {what}: at most {n / 1e6:.2f} M instructions per audio second; Pi 4 {pi4 * 100:.2f} % "
              f"of a core, Pi 5 {pi5 * 100:.2f} %" + ("" if budget is None else
              f"; budget {budget * 100:.0f} % of a Pi 4 core: {'met' if met else 'MISSED'}"))
    if args.write_figures:
        write_figures(args.write_figures, table, load_start)
    if args.check and missed:
        print("insn-bench: budgets missed:\n  " + "\n  ".join(missed), file=sys.stderr)
        sys.exit(1)
    if args.check:
        print("insn-bench: every budget met")


def write_figures(path, table, load_start):
    begin, end = f"<!-- begin: {SECTION} -->", f"<!-- end: {SECTION} -->"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = open("/proc/loadavg").read().split()[0]
    body = (f"Written by `{SECTION} --write-figures` on {now} (load average {load_start} at the start, {load} at "
            f"the end). Guest instructions of the arm64 `segmance sim` under qemu-user (qemu-aarch64 with "
            f"`insn-threads.c`), per audio second: each workload to {T1:.0f} s and to {T2:.0f} s of virtual time, "
            f"the difference over the {T2 - T1:.0f} s between. The twin runs all on one thread and renders (silence) "
            f"and writes its WAV while paused too: each figure is the whole twin's, an upper bound of the part "
            f"named (render: the twin playing at that speed; control loop and LCD: the twin paused). Time on a Pi = instructions / (IPC x clock), with the IPC assumed (not "
            f"measured: no Pi here): {PI4[0]} IPC {PI4[2]:.1f}, {PI5[0]} IPC {PI5[2]:.1f} (scalar Swift and C "
            f"DSP loops; the A76 issues wider).\n\n"
            "| what | instructions per audio second | Pi 4 (1.5 GHz, IPC 1.0) | Pi 5 (2.4 GHz, IPC 1.5) "
            "| budget (of one Pi 4 core) | met |\n|---|---|---|---|---|---|\n")
    for what, n, pi4, pi5, budget, met in table:
        body += (f"| {what} (at most) | {n / 1e6:.2f} M | {pi4 * 100:.2f} % of a core ({pi4 * 1000:.1f} ms per s) "
                 f"| {pi5 * 100:.2f} % | {'' if budget is None else f'≤ {budget * 100:.0f} %'} "
                 f"| {'' if met is None else 'yes' if met else '**no**'} |\n")
    block = f"{begin}\n### `{SECTION}`\n\n{body}{end}"
    text = open(path).read() if os.path.exists(path) else "# Figures\n\n"
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text += ("" if text.endswith("\n\n") else "\n") + block + "\n"
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    print(f"figures: section `{SECTION}` written to {path}")


if __name__ == "__main__":
    main()
