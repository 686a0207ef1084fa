#!/bin/sh
# Draw frames on every core, train the point reader from the shipped weights,
# export and measure it (tools/train_on_device.py says how); for a GPU machine:
#   sh tools/train_on_device.sh --frames 12000 --epochs 6 --workers 16 --device cuda --out "$OUT"
# Needs python3 with torch, onnx, opencv and numpy; installs nothing.  $PYTHON picks another python.
exec "${PYTHON:-python3}" "$(dirname "$0")/train_on_device.py" "$@"
