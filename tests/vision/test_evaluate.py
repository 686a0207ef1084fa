"""The evaluation command runs over a folder of labelled images and reports
every figure the issue asks for.  (Accuracy itself is a benchmark, not a test.)"""

from pathlib import Path

from willughby.vision.evaluate import evaluate, main

GOLDEN = Path(__file__).parent / "golden"


def test_evaluate_reports_each_figure(capsys):
    report = evaluate(GOLDEN, progress=False)
    assert report.images == 3 and report.clear == 3
    assert report.location_total == 3 * 52
    assert 0 <= report.location_right <= report.location_total
    assert main([str(GOLDEN)]) == 0
    out = capsys.readouterr().out
    for words in ("per-location accuracy", "boards read exactly", "occluded frames refused", "ms per frame"):
        assert words in out


def test_evaluate_refuses_a_missing_folder(capsys):
    assert main(["/nonexistent/folder"]) == 2
