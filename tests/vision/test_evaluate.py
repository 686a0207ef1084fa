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


def test_the_confidence_table_counts_every_point_of_the_frames_read():
    report = evaluate(GOLDEN, progress=False)
    assert len(report.trust) == 24 * (report.clear - report.clear_refused)
    assert all(0.0 <= c <= 1.0 for c, _ in report.trust)
    table = report.trust_lines()
    counted = sum(int(line.split(":")[1].split()[0]) for line in table[1:])
    assert counted == len(report.trust)


def test_a_wrong_point_is_counted_wrong_in_the_confidence_table(tmp_path):
    import json
    import shutil
    src = sorted(GOLDEN.glob("*.json"))[0]
    label = json.loads(src.read_text())
    side = "light" if sum(label["light"]) < 15 else "dark"
    label[side][0] = label[side][0] + 1 if label[side][0] < 15 else 0   # the label now disagrees at point 1
    (tmp_path / src.name).write_text(json.dumps(label))
    for ext in (".jpg", ".png", ".jpeg"):
        if src.with_suffix(ext).exists():
            shutil.copy(src.with_suffix(ext), tmp_path / src.with_suffix(ext).name)
    report = evaluate(tmp_path, progress=False)
    honest = evaluate(GOLDEN, progress=False, limit=1)
    assert sum(not ok for _, ok in report.trust) == sum(not ok for _, ok in honest.trust) + 1


def test_evaluate_refuses_a_missing_folder(capsys):
    assert main(["/nonexistent/folder"]) == 2
