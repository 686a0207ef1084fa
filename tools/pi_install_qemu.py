"""Run ``hardware/install-pi.sh`` end to end in an arm64 Debian Bookworm root
under qemu-user: the nearest thing to a Pi this side of one.

    sudo python3 tools/pi_install_qemu.py            # the run: minutes (below)
    python3 tools/pi_install_qemu.py --check         # what this machine lacks for it (changes nothing)
    sudo python3 tools/pi_install_qemu.py --fresh    # debootstrap the root again

It needs root (chroot, mounts), Debian's ``debootstrap`` and
``qemu-user-static`` (``sudo apt-get install qemu-user-static debootstrap``),
and binfmt_misc with the aarch64 interpreter registered with the F flag
(the package registers it; where it did not: ``sudo update-binfmts --enable
qemu-aarch64``), and the network (Debian's archive, PyPI).

What it does, each step said:

1. a Debian Bookworm root for arm64, made once by ``debootstrap --foreign``
   and its second stage under emulation, from the mirror this machine's apt
   uses, kept under ``.cache/pi-root/base`` (ignored by git); each run works
   on a fresh copy of it (``.cache/pi-root/work``), with apt's downloads and
   pip's cache kept between runs under ``.cache/pi-root``;
2. the checkout mounted read-only in it at ``/home/pi/willughby``, and
   ``sudo bash hardware/install-pi.sh`` run there, as on a Pi;
3. what it shows: the installer's output (``willughby doctor``'s lines among
   it), the service unit written and enabled, what was asked of systemd,
   what ``/opt/willughby`` holds, and ``willughby`` on the PATH.

What only a Pi has is stood in for, and the run says so:

- ``python3-picamera2`` and ``python3-lgpio`` come from Raspberry Pi OS's
  own archive, not Debian's: the installer is run with
  ``WILLUGHBY_SKIP_PACKAGES="python3-picamera2 python3-lgpio"``, so the
  doctor finds them missing, as it should;
- systemd is not running (a chroot has no PID 1 of its own): a stand-in
  ``/usr/local/sbin/systemctl`` writes what it is asked to
  ``/var/log/stand-in-systemctl.log``; ``enable`` it hands to the real
  ``systemctl``, which needs no running systemd for it; ``daemon-reload``
  and ``restart`` are logged, not done;
- no camera, pins or dice box: the example configuration names them, and
  the doctor says each is missing, which must not stop the installer.

Exit status 0 when the installer finished and the unit is written and
enabled, 1 otherwise, 2 where this machine lacks something (``--check``
names it).

Measured on the development container (2 x86-64 cores shared with other
work, Debian's qemu-user-static 7.2): debootstrap of the base root, once,
8.6 minutes; then a whole run, the install in a fresh copy of it, 3.0
minutes with the wheels downloaded, and 2.5 to 3.7 in three runs with
apt's and pip's caches kept (the cores busy with other work or not). apt installs 48 packages (Python 3.11 and espeak-ng, with what they
need); pip installs the Pi's lock from aarch64 wheels (OpenCV 5.1.0, numpy
2.4.6, simplejpeg 1.9.0 for cp311), hashes checked, then the package.
The doctor, run there by the installer as the service's user, said (its
status 1 did not stop the install)::

    ok      python     Python 3.11.2 on aarch64
    ok      opencv     OpenCV 5.1.0, numpy 2.4.6
    MISSING picamera2  picamera2 is not installed (a Pi camera needs it: ...)
    ok      reader     the point reader is installed, in two parts
    ok      data       the data directory /var/lib/willughby is writable
    MISSING camera     camera 'picamera:0': picamera: the module 'picamera2' is not installed (...)
    MISSING pins       the Pi's pins: cannot open roll on GPIO17: Unable to load any default pin factory! (...)
    MISSING box        no dice box found: no serial port of a Raspberry Pi Pico (USB vendor 2e8a); ...
    ok      speech     espeak-ng at /usr/bin/espeak-ng
    missing: picamera2, camera, pins, box

What it cannot show: picamera2 beside the venv's numpy 2 (Raspberry Pi
OS's own packages are not in Debian's archive), the pins, a camera, and
systemd starting the service; those wait for a real Pi.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "pi-root"
SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
#: what only Raspberry Pi OS's archive has, left out of the installer's apt-get
STAND_IN_PACKAGES = ("python3-picamera2", "python3-lgpio")
#: where the checkout is seen in the root
INSIDE = "/home/pi/willughby"
SYSTEMCTL_LOG = "/var/log/stand-in-systemctl.log"
BINFMT = Path("/proc/sys/fs/binfmt_misc")
#: the certificate authorities added on this machine (update-ca-certificates), copied into the root
LOCAL_CAS = Path("/usr/local/share/ca-certificates")

STAND_IN_SYSTEMCTL = f"""#!/bin/sh
# a stand-in for systemctl in a chroot, where systemd is not running (tools/pi_install_qemu.py):
# it writes what it is asked; enable goes to the real systemctl, which needs no running systemd for it
echo "systemctl $*" >> {SYSTEMCTL_LOG}
case "$1" in
    enable|disable|is-enabled) exec /usr/bin/systemctl "$@" ;;
esac
echo "   (stand-in systemctl: no systemd in this chroot; logged, not done: systemctl $*)"
"""

#: no service started by a package's install in the root (Debian's policy-rc.d convention)
POLICY_RC_D = "#!/bin/sh\nexit 101\n"


def say(text: str) -> None:
    print(f"pi_install_qemu: {text}", flush=True)


def interpreter_registered() -> str | None:
    """Why aarch64 programs cannot run here (None: they can): binfmt_misc and its qemu-aarch64 entry, with F."""
    entry = BINFMT / "qemu-aarch64"
    if not (BINFMT / "status").exists():
        return f"binfmt_misc is not mounted on {BINFMT} (sudo mount -t binfmt_misc binfmt_misc {BINFMT})"
    if not entry.exists():
        return "no qemu-aarch64 interpreter is registered (sudo update-binfmts --enable qemu-aarch64)"
    text = entry.read_text()
    if not text.startswith("enabled"):
        return "the qemu-aarch64 interpreter is disabled (sudo update-binfmts --enable qemu-aarch64)"
    flags = re.search(r"^flags:\s*(\S*)", text, re.M)
    if flags is None or "F" not in flags.group(1):
        return ("the qemu-aarch64 interpreter is registered without the F flag, so a chroot cannot find it "
                "(qemu-user-static registers it with F)")
    return None


def missing(need_root: bool = True) -> list[str]:
    """What this machine lacks for the run, one line each (empty: nothing)."""
    out = []
    if sys.platform != "linux":
        return ["this runs on Linux"]
    if need_root and os.geteuid() != 0:
        out.append("root (chroot and mounts): run it with sudo")
    for tool, package in (("debootstrap", "debootstrap"), ("chroot", "coreutils"), ("mount", "mount")):
        if shutil.which(tool) is None:
            out.append(f"{tool} (sudo apt-get install {package})")
    if shutil.which("qemu-aarch64-static") is None:
        out.append("qemu-aarch64-static (sudo apt-get install qemu-user-static)")
    why = interpreter_registered()
    if why:
        out.append(why)
    return out


def mirror() -> str:
    """The Debian mirror this machine's apt uses (the first ``.../debian`` it names), else deb.debian.org."""
    files = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for f in files:
        if not f.is_file() or f.suffix not in ("", ".list", ".sources"):
            continue
        for line in f.read_text(errors="replace").splitlines():
            line = line.split("#", 1)[0]
            for url in re.findall(r"https?://\S+", line):
                if url.rstrip("/").endswith("/debian"):
                    return str(url).rstrip("/")
    return DEFAULT_MIRROR


def run(argv: list[str]) -> None:
    subprocess.run(argv, check=True)


def mounted_under(folder: Path) -> list[str]:
    """What is mounted below *folder* (deepest first), from /proc/self/mounts."""
    inside = str(folder.resolve()) + "/"
    points = []
    for line in Path("/proc/self/mounts").read_text().splitlines():
        point = line.split()[1].replace("\\040", " ")
        if point.startswith(inside):
            points.append(point)
    return sorted(points, key=len, reverse=True)


def remove_root(folder: Path) -> None:
    """Delete a root made here, once nothing is mounted in it: a run cut short may have left /dev or the
    checkout mounted there, which must never be deleted through it."""
    for point in mounted_under(folder):
        subprocess.run(["umount", "-l", point], check=False)
    left = mounted_under(folder)
    if left:
        raise SystemExit(f"pi_install_qemu: still mounted in {folder}, so it is not deleted: {', '.join(left)}")
    shutil.rmtree(folder)


def base_root(fresh: bool, url: str) -> Path:
    """The cached Debian root for arm64, made where there is none (or *fresh*)."""
    base, done = CACHE / "base", CACHE / "base.done"
    if done.exists() and not fresh:
        say(f"1. the arm64 Debian {SUITE} root: kept from an earlier run ({base})")
        return base
    if base.exists():
        remove_root(base)
    done.unlink(missing_ok=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    say(f"1. the arm64 Debian {SUITE} root: debootstrap from {url} (once; the second stage runs under "
        "emulation, minutes)")
    start = time.monotonic()
    run(["debootstrap", "--arch=arm64", "--foreign", "--include=ca-certificates", SUITE, str(base), url])
    run(["chroot", str(base), "/debootstrap/debootstrap", "--second-stage"])
    done.write_text(f"{url}\n")
    say(f"   made in {(time.monotonic() - start) / 60:.1f} minutes")
    return base


def work_root(base: Path) -> Path:
    """A fresh copy of the base root to install into, with the stand-ins in place."""
    work = CACHE / "work"
    if work.exists():
        remove_root(work)
    run(["cp", "-a", "--reflink=auto", str(base), str(work)])
    shutil.copyfile("/etc/resolv.conf", work / "etc" / "resolv.conf")
    systemctl = work / "usr" / "local" / "sbin" / "systemctl"
    systemctl.parent.mkdir(parents=True, exist_ok=True)
    systemctl.write_text(STAND_IN_SYSTEMCTL)
    systemctl.chmod(0o755)
    policy = work / "usr" / "sbin" / "policy-rc.d"
    policy.write_text(POLICY_RC_D)
    policy.chmod(0o755)
    (work / INSIDE.lstrip("/")).mkdir(parents=True, exist_ok=True)
    local_cas = sorted(LOCAL_CAS.glob("*.crt"))
    if local_cas:     # a proxy between here and PyPI may sign with one of them: the root trusts what this machine does
        for ca in local_cas:
            shutil.copyfile(ca, work / LOCAL_CAS.relative_to("/") / ca.name)
        say(f"   this machine's own {len(local_cas)} CA certificate(s) ({LOCAL_CAS}) trusted in the root too")
    return work


def mount_all(stack: ExitStack, work: Path) -> None:
    """/proc, /sys, /dev and the checkout (read-only) in *work*, and apt's and pip's caches kept between
    runs; each unmounted when *stack* closes."""
    def mount(argv: list[str], target: Path) -> None:
        run(["mount", *argv, str(target)])
        stack.callback(subprocess.run, ["umount", "-l", str(target)], check=False)

    mount(["-t", "proc", "proc"], work / "proc")
    mount(["-t", "sysfs", "sysfs"], work / "sys")
    mount(["--bind", "/dev"], work / "dev")
    mount(["--bind", "/dev/pts"], work / "dev" / "pts")
    source = work / INSIDE.lstrip("/")
    mount(["--bind", str(ROOT)], source)
    run(["mount", "-o", "remount,bind,ro", str(source)])
    for kept, inside in ((CACHE / "apt-archives", "var/cache/apt/archives"), (CACHE / "pip-cache", "root/.cache/pip")):
        kept.mkdir(parents=True, exist_ok=True)
        (work / inside).mkdir(parents=True, exist_ok=True)
        mount(["--bind", str(kept)], work / inside)


def in_root_env() -> list[str]:
    """The environment in the root: root's on a plain Debian, and the packages left out."""
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
           "LANG": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive",
           "WILLUGHBY_SKIP_PACKAGES": " ".join(STAND_IN_PACKAGES)}
    return [f"{k}={v}" for k, v in env.items()]


def in_root(work: Path, command: str) -> subprocess.CompletedProcess[str]:
    """*command* run by bash in the root as root; its output captured."""
    return subprocess.run(["chroot", str(work), "/usr/bin/env", "-i", *in_root_env(), "bash", "-c", command],
                          text=True, capture_output=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="say what this machine lacks for the run, and stop")
    parser.add_argument("--fresh", action="store_true", help="debootstrap the base root again")
    parser.add_argument("--mirror", default=None, help="the Debian mirror (default: the one apt uses here)")
    args = parser.parse_args(argv)
    lacking = missing(need_root=not args.check)
    if args.check or lacking:
        for line in lacking:
            print(f"pi_install_qemu: missing: {line}", file=sys.stderr)
        if not lacking:
            say(f"nothing missing; the mirror: {args.mirror or mirror()}")
        return 2 if lacking else 0
    say("stand-ins: " + ", ".join(STAND_IN_PACKAGES) + " left out (WILLUGHBY_SKIP_PACKAGES: only Raspberry Pi "
        f"OS's archive has them); systemctl is a stand-in that logs to {SYSTEMCTL_LOG} (no systemd in a "
        "chroot); no camera, pins or dice box")
    base = base_root(args.fresh, args.mirror or mirror())
    work = work_root(base)
    with ExitStack() as stack:
        mount_all(stack, work)
        if any(LOCAL_CAS.glob("*.crt")):
            trusted = in_root(work, "update-ca-certificates")
            if trusted.returncode != 0:
                say(f"   update-ca-certificates failed in the root: {trusted.stdout}{trusted.stderr}")
        status, lines, minutes = run_installer(work)
        ok = report(work, status, lines, minutes)
    return 0 if ok else 1


def run_installer(work: Path) -> tuple[int, list[str], float]:
    """The installer run in the root, its output shown as it comes; its status, its lines and its minutes."""
    say(f"2. sudo bash hardware/install-pi.sh, in the root (the checkout at {INSIDE}), with "
        f"WILLUGHBY_SKIP_PACKAGES=\"{' '.join(STAND_IN_PACKAGES)}\"")
    start = time.monotonic()
    env = in_root_env()
    proc = subprocess.Popen(["chroot", str(work), "/usr/bin/env", "-i", *env, "bash", "-c",
                             f"cd {INSIDE} && bash hardware/install-pi.sh 2>&1"],
                            stdout=subprocess.PIPE, text=True, errors="replace")
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        print(line, end="", flush=True)
        lines.append(line.rstrip("\n"))
    return proc.wait(), lines, (time.monotonic() - start) / 60


#: the doctor's lines in the installer's output: a check each, then its last line
DOCTOR_LINE = re.compile(r"^(ok      |MISSING |note    )\S+|^(missing: |nothing the configuration needs is missing)")


def report(work: Path, status: int, lines: list[str], minutes: float) -> bool:
    """3. what the run shows; True where the installer finished and the unit is written and enabled."""
    say(f"3. the installer ended with status {status} after {minutes:.1f} minutes")
    doctor = [line for line in lines if DOCTOR_LINE.match(line)]
    say("   the doctor said:" + "".join(f"\n   | {line}" for line in doctor) if doctor
        else "   the doctor said nothing (did it run?)")
    unit = work / "etc" / "systemd" / "system" / "willughby.service"
    enabled = work / "etc" / "systemd" / "system" / "multi-user.target.wants" / "willughby.service"
    written = unit.is_file() and unit.read_text() == (ROOT / "hardware" / "willughby.service").read_text()
    say(f"   the unit {'written' if written else 'NOT written'}: /etc/systemd/system/willughby.service; "
        f"{'enabled' if enabled.is_symlink() else 'NOT enabled'} (multi-user.target.wants)")
    log = work / SYSTEMCTL_LOG.lstrip("/")
    asked = log.read_text().splitlines() if log.is_file() else []
    say("   asked of systemd: " + ("; ".join(asked) or "nothing"))
    opt = work / "opt" / "willughby"
    held = sorted(p.name for p in opt.iterdir()) if opt.is_dir() else []
    say("   /opt/willughby holds: " + " ".join(held))
    on_path = in_root(work, "command -v willughby && readlink -f \"$(command -v willughby)\"")
    say("   willughby on the PATH: " + " -> ".join(on_path.stdout.split("\n")[:2]) if on_path.returncode == 0
        else f"   willughby is NOT on the PATH: {on_path.stderr.strip()}")
    return status == 0 and written and enabled.is_symlink() and on_path.returncode == 0


if __name__ == "__main__":
    sys.exit(main())
