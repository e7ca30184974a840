#!/usr/bin/env python3
"""In the arm64 guest: the installed daemon (/usr/bin/segmance run, as user segmance with the
service's limits) driven and watched only through the kernel's devices, as the x86 box's
Swift daemon tests do, in a script (the arm64 box has no Swift test bundle):

  rehearsal  PLAY on gpio-sim (contact bounce) -> count-in and music; the audio captured from
             hw:Loopback,1,0 equals, to the sample, what the x86-64 twin rendered on the host
             for the same stick and press ($SEGMANCE_BOX_TWIN_DIR/rehearsal.wav); PLAY again
             -> paused, silence; one encoder detent clockwise -> the LCD's clock a second on;
             the LCD (i2c-stub's bytes from the smbus_write trace, decoded as an HD44780
             behind a PCF8574) shows the routine's title as the twin's first frame does
  pedal      a uinput "PCsensor FootSwitch" (board/sim-vm.toml's [[input]]): found, KEY_B
             plays (sound) and pauses (silence), unplugged it is let go
Usage: daemon.py rehearsal|pedal
"""
import fcntl, os, re, select, shutil, struct, subprocess, sys, threading, time, wave

BOX_DIR = os.environ["BOX_DIR"]
REPO = os.path.dirname(os.path.dirname(BOX_DIR))
SEGMANCE = os.environ.get("SEGMANCE_BOX_SEGMANCE", "/usr/bin/segmance")
USER = os.environ.get("SEGMANCE_BOX_USER", "segmance")
CHIP = os.environ["SEGMANCE_BOX_GPIO_CHIP"]
TWIN = os.environ.get("SEGMANCE_BOX_TWIN_DIR", "")
AS_USER = ["prlimit", "--rtprio=70:70", "--memlock=268435456:268435456", "--",
           "setpriv", "--reuid=" + USER, "--regid=" + USER, "--init-groups", "--"]
LINES = {"play": 0, "prev": 1, "next": 2, "loop": 3, "select": 4, "encoder_a": 5, "encoder_b": 6}


class Fail(Exception):
    pass


def say(text):
    print(text, flush=True)


def deadline_loop(seconds, what, probe):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = probe()
        if got:
            return got
        time.sleep(0.02)
    raise Fail(f"{what}: not within {seconds} s")


# -- the panel: gpio-sim pulls (a closed contact pulls the line down) ---------------------------
def contact(name, closed):
    with open(f"/sys/bus/gpio/devices/{CHIP}/sim_gpio{LINES[name]}/pull", "w") as f:
        f.write("pull-down" if closed else "pull-up")


def press(name, hold=0.12, bounce=True):
    if bounce:                                  # contact bounce: three changes a few ms apart
        for closed in (True, False):
            contact(name, closed)
            time.sleep(0.002)
    contact(name, True)
    time.sleep(hold)
    contact(name, False)


def detent(clockwise=True, step=0.03):
    first, second = ("encoder_a", "encoder_b") if clockwise else ("encoder_b", "encoder_a")
    for name, closed in ((first, True), (second, True), (first, False), (second, False)):
        contact(name, closed)
        time.sleep(step)


# -- the LCD: i2c-stub's bytes from the trace, an HD44780 behind a PCF8574 (P0 RS, P2 E, P4-7 D4-7)
class LCD(threading.Thread):
    def __init__(self, columns=16, rows=2):
        super().__init__(daemon=True)
        self.columns, self.rows = columns, rows
        self.ddram = [0x20] * 128
        self.address, self.cgram, self.four_bit, self.pending = 0, False, False, None
        self.screens, self.lock = [], threading.Lock()
        with open("/sys/kernel/tracing/trace", "w"):
            pass
        self.pipe = open("/sys/kernel/tracing/trace_pipe", "rb", buffering=0)
        self.last = None
        self.start()

    def run(self):
        pattern = re.compile(rb"smbus_write: i2c-0 a=027 f=0000 c=([0-9a-f]{1,2})")
        buf = b""
        while True:
            data = self.pipe.read(65536)
            if not data:
                return
            buf += data
            *lines, buf = buf.split(b"\n")
            for line in lines:
                m = pattern.search(line)
                if m:
                    self.byte(int(m.group(1), 16))

    def byte(self, value):
        # A nibble is latched on E's falling edge: the byte with E set carries it.
        if self.last is not None and self.last & 0x04 and not value & 0x04:
            self.nibble(self.last >> 4, bool(self.last & 0x01))
        self.last = value

    def nibble(self, n, rs):
        if not self.four_bit:                   # the 8-bit start-up: 3, 3, 3, then 2 = 4-bit
            if n == 0x2 and not rs:
                self.four_bit = True
            return
        if self.pending is None:
            self.pending = n
            return
        value, self.pending = (self.pending << 4) | n, None
        (self.data if rs else self.command)(value)

    def command(self, c):
        if c == 0x01:
            self.ddram, self.address, self.cgram = [0x20] * 128, 0, False
        elif c & 0x80:
            self.address, self.cgram = c & 0x7F, False
        elif c & 0x40:
            self.cgram = True
        elif c & 0xFE == 0x02:
            self.address, self.cgram = 0, False
        self.snapshot()

    def data(self, d):
        if self.cgram:
            return
        self.ddram[self.address & 0x7F] = d
        self.address = (self.address + 1) & 0x7F
        self.snapshot()

    def text(self):
        starts = [0x00, 0x40, 0x14, 0x54][: self.rows]
        out = []
        for s in starts:
            row = self.ddram[s : s + self.columns]
            # CGRAM glyphs (codes 0-7) kept as control characters; other ROM symbols as "#".
            out.append("".join(chr(c) if 0x20 <= c < 0x7E or c < 8 else "#" for c in row))
        return out

    def snapshot(self):
        rows = self.text()
        with self.lock:
            if not self.screens or self.screens[-1] != rows:
                self.screens.append(rows)

    def expect(self, what, predicate, timeout=20, after=0):
        def probe():
            with self.lock:
                for i in range(after, len(self.screens)):
                    if predicate(self.screens[i]):
                        return i + 1
            return None
        try:
            return deadline_loop(timeout, f"LCD: {what}", probe)
        except Fail:
            with self.lock:
                tail = self.screens[-5:]
            raise Fail(f"LCD: {what}: not within {timeout} s; last screens {tail}")


# -- the capture: hw:Loopback,1,0 through arecord, raw S16_LE stereo 48 kHz ---------------------
class Capture:
    def __init__(self, path, seconds):
        self.path = path
        self.proc = subprocess.Popen(["arecord", "-q", "-D", "hw:Loopback,1,0", "-f", "S16_LE", "-c", "2",
                                      "-r", "48000", "-t", "raw", "--period-size=512", "--buffer-size=8192",
                                      "-d", str(seconds), path])

    def frames(self):
        return os.path.getsize(self.path) // 4 if os.path.exists(self.path) else 0

    def read(self):
        with open(self.path, "rb") as f:
            return f.read()

    def sound_after(self, frame, timeout=15):
        def probe():
            data = self.read()
            for i in range(frame * 4, len(data) - 3, 4):
                if data[i:i + 4] != b"\0\0\0\0":
                    return i // 4
            return None
        return deadline_loop(timeout, f"sound after frame {frame}", probe)

    def silence_after(self, frame, length=24000, timeout=15):
        def probe():
            data = self.read()
            run = 0
            for i in range(frame * 4, len(data) - 3, 4):
                run = run + 1 if data[i:i + 4] == b"\0\0\0\0" else 0
                if run >= length:
                    return i // 4 - length + 1
            return None
        return deadline_loop(timeout, f"{length} frames of silence after frame {frame}", probe)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()


# -- the daemon ------------------------------------------------------------------------------------
class Daemon:
    def __init__(self, name, stick):
        self.dir = f"/run/segmance-box/{name}"
        shutil.rmtree(self.dir, ignore_errors=True)
        for d in ("library", "media"):
            os.makedirs(f"{self.dir}/{d}")
        subprocess.run(["chown", "-R", f"{USER}:{USER}", f"{self.dir}/library"], check=True)
        os.chmod(f"{self.dir}/library", 0o750)
        self.config = f"{self.dir}/segmance.toml"
        # Kernel 6.12 labels gpio-sim's chip "gpio-sim.0:node0" (6.1: "gpio-sim.0-node0", the
        # profile's): the profile's copy names the label gpiodetect reports for the box's chip.
        detect = subprocess.run(["gpiodetect"], capture_output=True, text=True).stdout
        label = re.search(rf"^{CHIP} \[([^\]]+)\]", detect, re.M)
        if not label:
            raise Fail(f"gpiodetect does not list {CHIP}: {detect}")
        board = f"{self.dir}/sim-vm.toml"
        with open(f"{REPO}/board/sim-vm.toml") as f:
            profile = re.sub(r'^chip = ".*"', f'chip = "{label.group(1)}"', f.read(), count=1, flags=re.M)
        with open(board, "w") as f:
            f.write(profile)
        with open(self.config, "w") as f:
            f.write(f'board = "{board}"\nlibrary = "{self.dir}/library"\n'
                    f'media_root = "{self.dir}/media"\nstick_status = "{self.dir}/stick-status"\n'
                    f'auto_import = false\nrealtime_priority = 70\n')
        out = subprocess.run(AS_USER + [SEGMANCE, "import", stick, "--library", f"{self.dir}/library"],
                             capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            raise Fail(f"segmance import {stick}: {out.stdout}{out.stderr}")
        self.lines, self.lock = [], threading.Lock()

    def start(self):
        self.proc = subprocess.Popen(AS_USER + [SEGMANCE, "run", "--config", self.config],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._pump, daemon=True).start()
        self.expect("ready: ", 90)
        audio = self.expect("audio: hw:", 20)[1]
        if not audio.endswith("render thread SCHED_FIFO priority 70, memory locked"):
            raise Fail(f"the render thread did not get what segmance.service grants: {audio}")
        status = open(f"/proc/{self.proc.pid}/status").read()
        uid = re.search(r"^Uid:\s+(\d+)", status, re.M).group(1)
        if uid == "0" or "CapEff:\t0000000000000000" not in status:
            raise Fail("the daemon runs as root or with capabilities")
        say(f"daemon: running as {USER} (uid {uid}, no capabilities), render thread SCHED_FIFO 70")

    def _pump(self):
        for line in self.proc.stdout:
            with self.lock:
                self.lines.append(line.rstrip("\n"))

    def expect(self, text, timeout=20, after=0):
        def probe():
            with self.lock:
                for i in range(after, len(self.lines)):
                    if text in self.lines[i]:
                        return i + 1, self.lines[i]
            return None
        try:
            return deadline_loop(timeout, f"daemon log: {text!r}", probe)
        except Fail:
            with self.lock:
                tail = self.lines[-8:]
            raise Fail(f"daemon log: {text!r} not within {timeout} s; last lines {tail}")

    def stop(self, name):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        with self.lock:
            log = "\n".join(self.lines)
        with open(f"/share/daemon-{name}.log", "w") as f:
            f.write(log + "\n")
        trouble = [l for l in self.lines if "underrun" in l or "xrun" in l]
        return self.proc.returncode, trouble


def masked(rows):
    """A screen as the comparison with the twin sees it: every glyph (CGRAM, or a symbol outside
    ASCII) a "#", the clock's digits masked (the daemon samples its position at other instants)."""
    return tuple(re.sub(r"\d+:\d\d", "#:##", "".join(c if 0x20 <= ord(c) < 0x7E else "#" for c in r)) for r in rows)


def twin_screens(path, until):
    """The twin's distinct masked screens from its first count-in frame to `until` seconds."""
    out = []
    for line in open(path, encoding="utf-8"):
        time_, *rows = line.rstrip("\n").split("|")[:-1]
        if float(time_) > until:
            break
        screen = masked(rows)
        if (out or "Ready in" in screen[0]) and (not out or out[-1] != screen):
            out.append(screen)
    return out


def first_sound(data):
    for i in range(0, len(data) - 3, 4):
        if data[i:i + 4] != b"\0\0\0\0":
            return i // 4
    return None


# -- the checks --------------------------------------------------------------------------------------
def rehearsal():
    if not TWIN or not os.path.exists(f"{TWIN}/rehearsal.wav"):
        raise Fail("no twin reference: SEGMANCE_BOX_TWIN_DIR (arm64/run.sh makes it with twin-reference.sh)")
    d = Daemon("rehearsal", f"{TWIN}/stick")
    lcd = LCD()
    cap = Capture("/tmp/rehearsal.raw", 60)
    try:
        d.start()
        shown = lcd.expect("the routine, stopped", lambda s: "1/2 Alpha" in s[0], 30)
        start = cap.frames()
        press("play")
        line = d.expect("control: press play at part 1 frame 0 (stopped)", 10)[1]
        say(f"rehearsal: {line}")
        shown = lcd.expect("the count-in", lambda s: "Ready in" in " ".join(s), 20, shown)
        shown = lcd.expect("playing part 1", lambda s: "1/2 Alpha" in s[0] and "0:01/0:20" in s[1], 20, shown)
        playing = lcd.screens[shown - 1][0][0]
        first = cap.sound_after(start, 15)
        # Let it play into the music (the count-in is 3 s), then pause.
        deadline_loop(30, "9 s of capture after the first tick", lambda: cap.frames() > first + 9 * 48000)
        press("play")
        d.expect("(playing)", 10)
        paused = lcd.expect("paused", lambda s: "1/2 Alpha" in s[0] and s[0][0] != playing, 10, shown)
        quiet = cap.silence_after(first + 48000 * 6, 24000, 15)
        clock = re.search(r"(\d+):(\d\d)", lcd.screens[-1][1])
        if not clock:
            raise Fail(f"no clock on the LCD: {lcd.screens[-1]}")
        before = int(clock.group(1)) * 60 + int(clock.group(2))
        detent(clockwise=True)
        want = f"{(before + 1) // 60}:{(before + 1) % 60:02d}"
        lcd.expect(f"the clock at {want} after a detent", lambda s: want in s[1], 10, paused)
        say(f"rehearsal: a detent forward, paused: the LCD's clock {before // 60}:{before % 60:02d} -> {want}")
    finally:
        time.sleep(0.5)
        status, trouble = d.stop("rehearsal")
        cap.stop()
        with open("/share/lcd-rehearsal.txt", "w") as f:
            f.write("\n".join("|" + "|".join(s) + "|" for s in lcd.screens) + "\n")
    if status != 0:
        raise Fail(f"the daemon exited {status} on SIGTERM")
    if trouble:
        raise Fail(f"audio trouble: {trouble}")
    # The audio to the sample: from the first tick to the pause, the x86-64 twin's.
    got = cap.read()[first * 4 : quiet * 4]
    twin = wave.open(f"{TWIN}/rehearsal.wav")
    if (twin.getnchannels(), twin.getsampwidth(), twin.getframerate()) != (2, 2, 48000):
        raise Fail("the twin's WAV is not 48 kHz 16-bit stereo")
    ref = twin.readframes(twin.getnframes())
    t0 = first_sound(ref)
    # The pause's ramp (240 frames) plus a period may come anywhere after the press: compare
    # up to a period before the capture's last sound, where both still play the music.
    last = len(got) // 4
    while last > 0 and got[last * 4 - 4 : last * 4] == b"\0\0\0\0":
        last -= 1
    n = last - 240 - 512
    if n < 6 * 48000:
        raise Fail(f"only {n} frames of music before the pause")
    a, b = got[: n * 4], ref[t0 * 4 : (t0 + n) * 4]
    if a != b:
        diff = next(i for i in range(0, min(len(a), len(b)), 4) if a[i:i + 4] != b[i:i + 4]) // 4
        with open("/share/rehearsal-capture.raw", "wb") as f:
            f.write(got)
        raise Fail(f"the capture differs from the x86-64 twin's audio at frame {diff} of {n} after the first tick")
    say(f"rehearsal: audio = x86-64 twin audio, {n} frames ({n / 48000:.2f} s) from the first tick, 0 LSB")
    # The LCD's screens: the twin's, from the count-in to the pause, in order (a subsequence:
    # the LCD also passes through screens half written).
    twin_seq = twin_screens(f"{TWIN}/rehearsal-frames.txt", 0.5 + n / 48000)
    lcd_seq = [masked(s) for s in lcd.screens]
    i = 0
    for screen in lcd_seq:
        if i < len(twin_seq) and screen == twin_seq[i]:
            i += 1
    if len(twin_seq) < 3 or i < len(twin_seq):
        raise Fail(f"the LCD did not show the twin's screens in order: matched {i} of {twin_seq}")
    say(f"rehearsal: LCD = twin frames: {len(twin_seq)} distinct screens in order (the count-in's big "
        f"digits, the part playing), among {len(lcd.screens)} on the LCD")


class Pedal:
    def __init__(self):
        self.fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
        fcntl.ioctl(self.fd, 0x40045564, 1)        # UI_SET_EVBIT EV_KEY
        fcntl.ioctl(self.fd, 0x40045565, 48)       # UI_SET_KEYBIT KEY_B
        fcntl.ioctl(self.fd, 0x405c5503, struct.pack("<HHHH80sI", 3, 0x0c45, 0x7403, 1, b"PCsensor FootSwitch", 0))
        fcntl.ioctl(self.fd, 0x5501)               # UI_DEV_CREATE

    def key(self, down):
        for etype, code, value in ((1, 48, 1 if down else 0), (0, 0, 0)):
            os.write(self.fd, struct.pack("<qqHHi", 0, 0, etype, code, value))

    def tap(self):
        self.key(True)
        time.sleep(0.08)
        self.key(False)

    def unplug(self):
        fcntl.ioctl(self.fd, 0x5502)               # UI_DEV_DESTROY
        os.close(self.fd)


def pedal():
    stick = f"{TWIN}/stick" if TWIN else None
    if not stick or not os.path.isdir(stick):
        raise Fail("no stick: SEGMANCE_BOX_TWIN_DIR")
    d = Daemon("pedal", stick)
    lcd = LCD()
    cap = Capture("/tmp/pedal.raw", 60)
    try:
        d.start()
        shown = lcd.expect("stopped", lambda s: "1/2 Alpha" in s[0], 30)
        p = Pedal()
        found = d.expect('input: "PCsensor FootSwitch" at /dev/input/event', 15)[0]
        start = cap.frames()
        p.tap()
        d.expect("control: press play at part 1 frame 0 (stopped)", 10, found)
        sound = cap.sound_after(start, 15)
        deadline_loop(20, "sound for 4 s", lambda: cap.frames() > sound + 4 * 48000)
        p.tap()
        d.expect("(playing)", 10, found)
        cap.silence_after(sound + 48000, 24000, 15)
        p.unplug()
        d.expect(" is gone", 10, found)
        say("pedal: found, KEY_B played (sound) and paused (silence), unplugged: let go")
    finally:
        status, trouble = d.stop("pedal")
        cap.stop()
    if status != 0 or trouble:
        raise Fail(f"the daemon exited {status}; audio trouble: {trouble}")


if __name__ == "__main__":
    try:
        {"rehearsal": rehearsal, "pedal": pedal}[sys.argv[1]]()
    except Fail as e:
        say(f"{sys.argv[1]}: FAIL: {e}")
        sys.exit(1)
