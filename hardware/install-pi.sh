#!/usr/bin/env bash
# Install Willughby as a service on Raspberry Pi OS Bookworm (64-bit), from this checkout.
#
#   sudo bash hardware/install-pi.sh            # install (or bring an install up to date)
#   bash hardware/install-pi.sh --check         # say what it would do, change nothing (runs anywhere)
#
# What it does, each step said before it is done:
#   1. the Debian packages: the venv module (whose pip installs the rest; Debian's python3-pip is not
#      needed, and would bring a C compiler with it), espeak-ng, and picamera2 and lgpio, which come from
#      the system (built for the Pi's camera stack and pins; pip cannot give them);
#   2. the service user "willughby", in the video (camera), gpio (pins) and dialout (dice box) groups,
#      and its data directory /var/lib/willughby;
#   3. this checkout copied to /opt/willughby (without .git, .venv and caches), a venv there made with
#      --system-site-packages (so it sees picamera2 and lgpio), the Pi's lock installed in it
#      (requirements/pi.txt: every version pinned, every wheel's hash checked) and then the package
#      itself with nothing more (--no-deps), so nothing unpinned is fetched; /usr/local/bin/willughby;
#   4. /etc/willughby/willughby.toml from hardware/willughby.example.toml, unless there is one already;
#   5. the systemd unit, enabled; `willughby doctor` names anything still missing (a camera or a box not
#      plugged in yet is said, and does not stop the install); the service (re)started.
# The data (games, calibration, PIN) in /var/lib/willughby is never touched (only made if absent).
#
# WILLUGHBY_SKIP_PACKAGES="python3-picamera2 python3-lgpio" leaves those Debian packages out of step 1,
# said in a line: for a Debian that is not Raspberry Pi OS, whose archive lacks them
# (tools/pi_install_qemu.py runs the installer so, in an arm64 Debian under emulation).
set -euo pipefail

PREFIX=/opt/willughby
CONFIG_DIR=/etc/willughby
UNIT=/etc/systemd/system/willughby.service
USER_NAME=willughby
PACKAGES=(python3-venv espeak-ng python3-picamera2 python3-lgpio)
# not copied to /opt/willughby: the repository, a venv, caches and build outputs
EXCLUDES=(.git .venv .cache __pycache__ .mypy_cache .pytest_cache .hypothesis '*.egg-info' build dist)
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
CHECK=0

usage() {
    echo "usage: install-pi.sh [--check]" >&2
    exit 2
}

for arg in "$@"; do
    case "$arg" in
        --check) CHECK=1 ;;
        -h|--help) sed -n '2,24p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) usage ;;
    esac
done

step() {
    echo "== $*"
}

# run a command, or in check mode only say it
run() {
    echo "   $*"
    if [ "$CHECK" -eq 0 ]; then
        "$@"
    fi
}

fail() {
    echo "install-pi.sh: $*" >&2
    exit 1
}

for needed in pyproject.toml hardware/willughby.service hardware/willughby.example.toml; do
    [ -f "$SOURCE/$needed" ] || fail "$SOURCE is not a Willughby checkout: no $needed"
done

if [ "$CHECK" -eq 0 ]; then
    [ "$(id -u)" -eq 0 ] || fail "run it as root (sudo bash hardware/install-pi.sh), or with --check to see what it does"
    command -v apt-get >/dev/null || fail "no apt-get: this is for Raspberry Pi OS (Debian Bookworm)"
    machine="$(uname -m)"
    [ "$machine" = aarch64 ] || fail "this is $machine: the wheels checked are for 64-bit Raspberry Pi OS (aarch64)"
else
    echo "(check mode: nothing is changed)"
fi

wanted=()
skipped=()
for package in "${PACKAGES[@]}"; do
    case " ${WILLUGHBY_SKIP_PACKAGES:-} " in
        *" $package "*) skipped+=("$package") ;;
        *) wanted+=("$package") ;;
    esac
done

step "1. Debian packages: ${wanted[*]}"
if [ "${#skipped[@]}" -gt 0 ]; then
    echo "   (left out, as WILLUGHBY_SKIP_PACKAGES asks: ${skipped[*]})"
fi
run apt-get update
run apt-get install -y "${wanted[@]}"

step "2. the service user $USER_NAME, in the video, gpio and dialout groups"
if id "$USER_NAME" >/dev/null 2>&1; then
    echo "   ($USER_NAME exists)"
else
    run useradd --system --home /var/lib/willughby --shell /usr/sbin/nologin "$USER_NAME"
fi
for group in video gpio dialout; do
    if getent group "$group" >/dev/null 2>&1 || [ "$CHECK" -eq 1 ]; then
        run usermod -aG "$group" "$USER_NAME"
    else
        echo "   (no group $group on this system: skipped)"
    fi
done

run install -d -o "$USER_NAME" -g "$USER_NAME" -m 750 /var/lib/willughby

step "3. $PREFIX: this checkout, and its venv (--system-site-packages) with the Pi's lock"
if [ "$SOURCE" != "$PREFIX" ]; then
    # the old copy goes (a file deleted since must not be installed); tar is in every Debian, rsync is not
    run rm -rf "$PREFIX"
    run mkdir -p "$PREFIX"
    excludes=()
    for pattern in "${EXCLUDES[@]}"; do
        excludes+=("--exclude=$pattern")
    done
    printf '   %s | %s\n' "$(printf '%q ' tar -C "$SOURCE" "${excludes[@]}" -cf - . | sed 's/ $//')" \
        "tar -C $PREFIX -xf -"
    if [ "$CHECK" -eq 0 ]; then
        tar -C "$SOURCE" "${excludes[@]}" -cf - . | tar -C "$PREFIX" -xf -
    fi
fi
run python3 -m venv --clear --system-site-packages "$PREFIX/.venv"
# every dependency at the lock's version, from a wheel whose hash it holds (checked in CI: tools/pi_wheels.py),
# and what builds the package (setuptools, wheel); then the package alone, which is pure Python
run "$PREFIX/.venv/bin/pip" install --require-hashes -r "$PREFIX/requirements/pi.txt"
run "$PREFIX/.venv/bin/pip" install --no-deps --no-build-isolation "$PREFIX"
# what that build leaves beside the sources (setuptools builds in place); the venv holds the package
run rm -rf "$PREFIX/build" "$PREFIX/willughby.egg-info"
# the command on everyone's PATH, for the owner's `willughby doctor` and the rest
run ln -sfn "$PREFIX/.venv/bin/willughby" /usr/local/bin/willughby

step "4. the configuration $CONFIG_DIR/willughby.toml"
if [ -f "$CONFIG_DIR/willughby.toml" ]; then
    echo "   (kept as it is)"
else
    run mkdir -p "$CONFIG_DIR"
    run cp "$SOURCE/hardware/willughby.example.toml" "$CONFIG_DIR/willughby.toml"
    echo "   edit it: the camera, the dice, the players; then: systemctl restart willughby"
fi

step "5. the service, and what it still lacks"
run cp "$SOURCE/hardware/willughby.service" "$UNIT"
run systemctl daemon-reload
run systemctl enable willughby
doctor=(runuser -u "$USER_NAME" -- env XDG_DATA_HOME=/var/lib "$PREFIX/.venv/bin/willughby" doctor
        --config "$CONFIG_DIR/willughby.toml")
echo "   ${doctor[*]}"
if [ "$CHECK" -eq 0 ]; then
    status=0
    "${doctor[@]}" || status=$?
    if [ "$status" -ne 0 ]; then
        # 1: something the configuration needs is missing (a camera or a box not plugged in yet, say)
        echo "   (the doctor ended with status $status: put right what it names; the install goes on, and the"
        echo "    service waits for a camera that is not there yet)"
    fi
fi
run systemctl restart willughby
echo "done: journalctl -u willughby shows the page's address and the control PIN"
