#!/usr/bin/env bash
# Install Willughby as a service on Raspberry Pi OS Bookworm (64-bit), from this checkout.
#
#   sudo bash hardware/install-pi.sh            # install (or bring an install up to date)
#   bash hardware/install-pi.sh --check         # say what it would do, change nothing (runs anywhere)
#
# What it does, each step said before it is done:
#   1. the Debian packages: the venv module, espeak-ng, and picamera2 and lgpio, which come from the
#      system (built for the Pi's camera stack and pins; pip cannot give them);
#   2. the service user "willughby", in the video (camera), gpio (pins) and dialout (dice box) groups,
#      and its data directory /var/lib/willughby;
#   3. this checkout copied to /opt/willughby, and a venv there made with --system-site-packages (so it
#      sees picamera2 and lgpio), the package installed in it (its dependencies from wheels);
#   4. /etc/willughby/willughby.toml from hardware/willughby.example.toml, unless there is one already;
#   5. the systemd unit, enabled; then `willughby doctor` names anything still missing.
# The data (games, calibration, PIN) in /var/lib/willughby is never touched (only made if absent).
set -euo pipefail

PREFIX=/opt/willughby
CONFIG_DIR=/etc/willughby
UNIT=/etc/systemd/system/willughby.service
USER_NAME=willughby
PACKAGES=(python3-venv python3-pip espeak-ng python3-picamera2 python3-lgpio)
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHECK=0

usage() {
    echo "usage: install-pi.sh [--check]" >&2
    exit 2
}

for arg in "$@"; do
    case "$arg" in
        --check) CHECK=1 ;;
        -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}"; exit 0 ;;
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

step "1. Debian packages: ${PACKAGES[*]}"
run apt-get update
run apt-get install -y "${PACKAGES[@]}"

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

step "3. $PREFIX: this checkout, and its venv (--system-site-packages)"
run mkdir -p "$PREFIX"
if [ "$SOURCE" != "$PREFIX" ]; then
    run cp -a "$SOURCE/." "$PREFIX/"
fi
run python3 -m venv --clear --system-site-packages "$PREFIX/.venv"
# the dependencies come as wheels for the Pi (checked in CI: tools/pi_wheels.py); the package is pure Python
run "$PREFIX/.venv/bin/pip" install --prefer-binary "$PREFIX"

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
run runuser -u "$USER_NAME" -- env XDG_DATA_HOME=/var/lib "$PREFIX/.venv/bin/willughby" doctor \
    --config "$CONFIG_DIR/willughby.toml"
run systemctl restart willughby
echo "done: journalctl -u willughby shows the page's address and the control PIN"
