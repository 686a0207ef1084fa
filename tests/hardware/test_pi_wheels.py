"""tools/pi_wheels.py, the check that every dependency installs on a Raspberry Pi from a wheel at the versions
installed here: its tags and its comparison (the download itself runs in .ci/run, which has the network)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "pi_wheels.py"
spec = importlib.util.spec_from_file_location("pi_wheels", TOOL)
pi_wheels = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pi_wheels)


def test_the_tags_are_those_a_bookworm_pi_takes():
    tags = pi_wheels.platform_tags()
    # numpy 2.4's aarch64 wheels carry manylinux_2_27 and _2_28 only: manylinux2014 alone would miss them
    assert "manylinux_2_28_aarch64" in tags and "manylinux_2_17_aarch64" in tags
    assert "manylinux_2_36_aarch64" in tags and "manylinux_2_37_aarch64" not in tags   # glibc 2.36
    assert not any("x86_64" in t for t in tags) and tags[-1] == "any"


def test_a_version_other_than_the_one_installed_here_is_named():
    installed = {"numpy": "2.4.6", "flask": "3.1.3", "setuptools": "65.5.0"}
    wheels = ["numpy-2.2.0-cp311-cp311-manylinux2014_aarch64.whl", "flask-3.1.3-py3-none-any.whl",
              "setuptools-84.2.1-py3-none-any.whl", "colorzero-2.0-py2.py3-none-any.whl"]
    assert pi_wheels.differences(wheels, installed) == ["numpy: 2.2.0 on the Pi, 2.4.6 here"]
    assert pi_wheels.differences(wheels[1:], installed) == []            # setuptools: the venv's own is kept
    assert pi_wheels.wheel_version("Opencv_Python_Headless-5.0.0.93-cp37-abi3-manylinux2014_aarch64.whl") == (
        "opencv-python-headless", "5.0.0.93")


def test_a_source_package_is_not_a_wheel():
    with pytest.raises(ValueError, match="not a wheel"):
        pi_wheels.differences(["numpy-2.4.6.tar.gz"], {"numpy": "2.4.6"})


def test_the_dependencies_are_the_projects_own():
    reqs = pi_wheels.requirements()
    assert any(r.startswith("numpy") for r in reqs) and any(r.startswith("opencv-python-headless") for r in reqs)
    assert not any(r.startswith("pytest") for r in reqs)                 # the test extras are not the Pi's
