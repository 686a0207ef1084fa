"""hardware/install-pi.sh run end to end in an arm64 Debian Bookworm root under qemu-user
(tools/pi_install_qemu.py): it installs the Pi's lock under emulation, the doctor reports what the
configuration lacks there without stopping it, and the service's unit is written and enabled.

Long (minutes: the root is debootstrapped once, under .cache/pi-root, and kept), so marked slow and left
out of a plain ``pytest``: ``sudo .venv/bin/python -m pytest -m slow tests/hardware/test_install_pi_qemu.py``.
Skipped where qemu-user-static, debootstrap or binfmt_misc are absent, or without root."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "pi_install_qemu.py"
spec = importlib.util.spec_from_file_location("pi_install_qemu", TOOL)
assert spec is not None and spec.loader is not None
pi_install_qemu = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pi_install_qemu)

@pytest.mark.slow
def test_the_installer_runs_to_the_end_in_an_arm64_debian_under_emulation():
    lacking = pi_install_qemu.missing()
    if lacking:
        pytest.skip("; ".join(lacking))
    done = subprocess.run([sys.executable, str(TOOL)], capture_output=True,
                          text=True, timeout=3600)
    out = done.stdout
    assert done.returncode == 0, out[-4000:] + done.stderr[-2000:]
    assert "stand-ins: python3-picamera2, python3-lgpio left out" in out
    assert "(left out, as WILLUGHBY_SKIP_PACKAGES asks: python3-picamera2 python3-lgpio)" in out
    # the lock's wheels for aarch64, hashes checked (OpenCV's, say, at the lock's version); then the package alone
    [opencv] = re.findall(r"^opencv-python-headless==(\S+)", (ROOT / "requirements" / "pi.txt").read_text(), re.M)
    assert re.search(rf"opencv_python_headless-{re.escape(opencv)}-\S+_aarch64\.whl", out)
    assert re.search(rf"^Successfully installed .*opencv-python-headless-{re.escape(opencv)}\b", out, re.M)
    assert "Successfully installed willughby-" in out
    # the doctor ran, found the Pi's camera and pins missing, and the install went on to the restart
    assert "MISSING picamera2" in out or "MISSING camera" in out
    assert "(the doctor ended with status 1:" in out
    assert "asked of systemd: systemctl daemon-reload; systemctl enable willughby; systemctl restart willughby" in out
    assert "the unit written: /etc/systemd/system/willughby.service; enabled" in out
    held = next(line for line in out.splitlines() if "/opt/willughby holds:" in line).split(":", 2)[-1].split()
    assert ".venv" in held and "pyproject.toml" in held
    assert ".git" not in held and ".cache" not in held and not any(h.endswith(".egg-info") for h in held)
    assert "willughby on the PATH: /usr/local/bin/willughby -> /opt/willughby/.venv/bin/willughby" in out


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mounts need root")
def test_a_root_left_with_a_folder_mounted_in_it_is_removed_without_deleting_through_the_mount(tmp_path):
    """A run cut short leaves /dev and the checkout mounted in its root; the next run removes that root, and
    must not delete what is mounted there."""
    precious, root = tmp_path / "precious", tmp_path / "work"
    precious.mkdir()
    (precious / "keep").write_text("kept")
    (root / "dev").mkdir(parents=True)
    if subprocess.run(["mount", "--bind", str(precious), str(root / "dev")]).returncode != 0:
        pytest.skip("mount --bind is not allowed here")
    try:
        assert pi_install_qemu.mounted_under(root) == [str((root / "dev").resolve())]
        pi_install_qemu.remove_root(root)
    finally:
        subprocess.run(["umount", "-l", str(root / "dev")], capture_output=True)
    assert not root.exists() and (precious / "keep").read_text() == "kept"
