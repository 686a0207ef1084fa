"""A photo brought to a dispute (``/dispute/<turn>``): uploaded with the PIN,
taken in safely, its corners proposed, the turn judged from it and the photo
and ruling kept with the game under the data directory. Every refusal is a
clear 4xx with nothing stored, never a crash (the Pi owner's journey, item 4).

The real companion serves the app here: the upload is a door into it."""

from __future__ import annotations

import io
import json
import os
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from willughby.companion.photos import MAX_PHOTO_BYTES, PhotoRefused, decode_photo, picture_size
from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision import pointnet
from willughby.web_ui import WebConfig, create_app

from .conftest import PIN, SECRET, log_in

RULES = preset_rules("backgammon")
START = start_position(RULES, "light")
AFTER = next(o for o in turn_outcomes(RULES, START, (3, 1)) if o.play.notation == "8/5 6/5").position
SPEC = dict(image_size=(1280, 720), tilt_deg=8.0, board_yaw_deg=2.0, cam_az_deg=0.0, cam_roll_deg=0.5, mirror=False,
            focal_mm=35.0, fill=0.85, n_dice=0, wood="walnut", men="white_black", points="red_cream",
            field="felt_green", table="light_table", lighting="overhead", row_max=5, men_thick_mm=9.0)


@pytest.fixture(scope="module")
def photo():
    """A photo (JPEG bytes) of the board after 8/5 6/5, and its true corners."""
    from willughby.vision.synth import SceneSpec, render

    image, label = render(np.random.default_rng(5), SceneSpec(position=AFTER.to_board(), occluded=False,
                                                              occluded_share=0.3, **SPEC))
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return jpeg.tobytes(), [[float(x), float(y)] for x, y in label["corners"]]


@pytest.fixture
def served(tmp_path: Path):
    """The app around a real companion whose game has one ruled turn (light's 3-1, 8/5 6/5)."""
    store = GameStore(tmp_path / "games.sqlite3")
    companion = Companion(store, photo_dir=tmp_path / "photos")
    companion.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    companion.enter_dice([3, 1], who="test")
    assert companion.on_reading(AFTER.to_board(), confidence=None, who="test")["verdict"] == "legal"
    app = create_app(WebConfig(pin=PIN, secret_key=SECRET), companion)
    yield app.test_client(), companion, tmp_path / "photos"
    store.close()


def _upload(client, data: bytes, token: str | None, turn: int = 1, name: str = "board.jpg"):
    headers = {"X-CSRF-Token": token} if token else {}
    return client.post(f"/api/dispute/{turn}/photo", data={"photo": (io.BytesIO(data), name)},
                       content_type="multipart/form-data", headers=headers)


def _kept(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def _png(width: int, height: int, idat: bytes = b"") -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """*jpeg* with an EXIF segment saying how the phone was held."""
    entry = struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1) + entry + struct.pack("<I", 0)
    body = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body + jpeg[2:]


# ------------------------------------------------------------------ taking a photo in
def test_the_header_gives_the_size_without_decoding():
    image = np.zeros((30, 50, 3), np.uint8)
    assert picture_size(cv2.imencode(".jpg", image)[1].tobytes()) == ("jpeg", 50, 30)
    assert picture_size(cv2.imencode(".png", image)[1].tobytes()) == ("png", 50, 30)
    assert picture_size(cv2.imencode(".webp", image)[1].tobytes())[1:] == (50, 30)


def test_a_decompression_bomb_is_refused_before_it_is_unpacked():
    # a real PNG of 7000 x 7000 grey pixels (49 megapixels) in well under a megabyte
    bomb = cv2.imencode(".png", np.zeros((7000, 7000), np.uint8), [cv2.IMWRITE_PNG_COMPRESSION, 9])[1].tobytes()
    assert len(bomb) < 1_000_000
    with pytest.raises(PhotoRefused, match="49 megapixels"):
        decode_photo(bomb)
    # a header that claims 20,000 x 20,000 over a few bytes of data
    with pytest.raises(PhotoRefused, match="megapixels"):
        decode_photo(_png(20000, 20000, zlib.compress(b"\x00" * 100)))


def test_a_png_that_unpacks_past_what_a_pi_holds_is_refused_on_its_header():
    """A 5 KB PNG just under 40 megapixels used to decode to about 230 MB (eight at once: 945 MB). A PNG or
    WebP is unpacked whole, so it may have 16 megapixels; a JPEG, decoded smaller by its own scaling, 40."""
    png = _png(6000, 6000, zlib.compress(b"\x00" * 100))
    with pytest.raises(PhotoRefused, match="36 megapixels.* at most 16 megapixels are taken in a PNG "
                                           r"\(a JPEG may have 40\)"):
        decode_photo(png)


_DECODE_BURST = r"""
import sys, threading
from pathlib import Path
from willughby.companion.runtime import limit_malloc_arenas
limit_malloc_arenas()                                         # as serve does, before its threads start
from willughby.companion.photos import decode_photo
def memory():
    got = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            got[name] = int(value.split()[0]) // 1024
    return got
files = [Path(p).read_bytes() for p in sys.argv[1:]]
decode_photo(files[0]); decode_photo(files[-1])              # the libraries' own first-use memory
Path("/proc/self/clear_refs").write_text("5")                # the peak counted from here
before = memory()
shapes = []
threads = [threading.Thread(target=lambda data=data: shapes.append(decode_photo(data).shape)) for data in files * 4]
for t in threads: t.start()
for t in threads: t.join()
after = memory()
print(before["VmRSS"], after["VmHWM"], after["VmRSS"], sorted(set(shapes)))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the decoder's memory from /proc")
def test_a_burst_of_large_photos_costs_one_pictures_memory_and_gives_it_back(tmp_path):
    """Eight at once (a 40-megapixel JPEG and a 16-megapixel PNG, four times each): decoded one at a time, the
    JPEG at a quarter of its size by its own scaling; the memory handed back after."""
    import subprocess
    import sys

    rng = np.random.default_rng(3)
    noise = rng.integers(0, 255, (500, 800, 3), np.uint8)
    jpeg = tmp_path / "big.jpg"
    jpeg.write_bytes(cv2.imencode(".jpg", cv2.resize(noise, (8000, 5000)), [cv2.IMWRITE_JPEG_QUALITY, 60])[1])
    png = tmp_path / "big.png"
    png.write_bytes(cv2.imencode(".png", cv2.resize(noise, (4000, 4000), interpolation=cv2.INTER_NEAREST))[1])
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _DECODE_BURST, str(jpeg), str(png)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(root)}, timeout=300)
    assert done.returncode == 0, done.stderr
    rss_before, peak, rss_after, shapes = done.stdout.split(maxsplit=3)
    assert int(peak) - int(rss_before) < 150, done.stdout       # one 16-megapixel picture unpacked at a time
    assert int(rss_after) - int(rss_before) < 40, done.stdout   # and handed back
    assert shapes.strip() == "[(1250, 2000, 3), (2000, 2000, 3)]"


def test_exif_rotation_is_honoured_and_the_metadata_dropped():
    image = np.zeros((40, 100, 3), np.uint8)
    image[:, :10] = 255                                  # a white band along the left side
    jpeg = _with_exif_orientation(cv2.imencode(".jpg", image)[1].tobytes(), 6)   # "rotate 90 clockwise to view"
    turned = decode_photo(jpeg)
    assert turned.shape[:2] == (100, 40)
    assert turned[:10].mean() > 200 and turned[-10:].mean() < 50     # the left band is now the top


def test_damaged_and_foreign_files_are_refused():
    jpeg = cv2.imencode(".jpg", np.full((64, 64, 3), 128, np.uint8))[1].tobytes()
    for data, why in ((b"", "empty"), (b"GIF89a" + b"\x00" * 100, "not a JPEG"), (jpeg[:40], "damaged"),
                      (_png(64, 64, b"nonsense"), "damaged"), (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "not a")):
        with pytest.raises(PhotoRefused, match=why):
            decode_photo(data)


# ------------------------------------------------------------------ the door
def test_an_upload_needs_the_pin_and_the_token(served, photo):
    client, _companion, folder = served
    assert _upload(client, photo[0], None).status_code == 403
    log_in(client)
    response = _upload(client, photo[0], None)
    assert response.status_code == 403 and "X-CSRF-Token" in response.json["error"]
    assert _kept(folder) == []


@pytest.mark.parametrize("kind", ["text", "bomb", "too_many_bytes", "body_past_the_cap",
                                  "no_field", "no_such_turn"])
def test_bad_uploads_get_a_clear_4xx_and_nothing_is_kept(served, kind):
    client, companion, folder = served
    token = log_in(client)
    before = len(companion.store.game(companion.state()["game_id"])["log"])
    if kind == "text":
        response = _upload(client, b"just some words", token)
        expected, says = 400, "not a JPEG, PNG or WebP"
    elif kind == "bomb":
        response = _upload(client, _png(9000, 9000, zlib.compress(b"\x00" * 1000)), token, name="bomb.png")
        expected, says = 400, "megapixels"
    elif kind == "too_many_bytes":
        response = _upload(client, b"\xff\xd8\xff" + bytes(MAX_PHOTO_BYTES + 10), token)
        expected, says = 413, "the photo is larger than 20 MB, the most taken"
    elif kind == "body_past_the_cap":       # refused by the app before the form is parsed: the limit named all the same
        response = _upload(client, b"\xff\xd8\xff" + bytes(MAX_PHOTO_BYTES + 500_000), token)
        expected, says = 413, "the photo is larger than 20 MB, the most taken"
    elif kind == "no_field":
        response = client.post("/api/dispute/1/photo", data={"picture": "x"}, content_type="multipart/form-data",
                               headers={"X-CSRF-Token": token})
        expected, says = 400, "'photo'"
    else:
        response = _upload(client, cv2.imencode(".jpg", np.zeros((8, 8, 3), np.uint8))[1].tobytes(), token, turn=7)
        expected, says = 404, "turn 7"
    assert response.status_code == expected, response.json
    assert says in response.json["error"]
    assert _kept(folder) == []
    assert len(companion.store.game(companion.state()["game_id"])["log"]) == before


@pytest.mark.skipif(not pointnet.available(), reason="the point reader's weights are not installed")
def test_a_photo_is_kept_judged_and_shown_with_the_game(served, photo):
    client, companion, folder = served
    token = log_in(client)
    data, corners = photo
    response = _upload(client, data, token)
    assert response.status_code == 200, response.json
    sent = response.json
    assert sent["turn"] == 1 and sent["size"] == [1280, 720]
    game_id = companion.state()["game_id"]
    kept = _kept(folder / game_id)
    assert [p.suffix for p in kept] == [".jpg", ".json"]
    image = client.get(f"/api/photos/{sent['photo']}.jpg")
    assert image.status_code == 200 and image.mimetype == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(image.data, np.uint8), cv2.IMREAD_COLOR).shape == (720, 1280, 3)

    judged = client.post(f"/api/photos/{sent['photo']}/judge", json={"corners": corners},
                         headers={"X-CSRF-Token": token})
    assert judged.status_code == 200, judged.json
    ruling = judged.json
    assert ruling["verdict"] == "legal" and ruling["play"] == "8/5 6/5"
    assert ruling["referee"] == {"verdict": "legal", "play": "8/5 6/5"}
    assert ruling["candidates"][0]["play"] == "8/5 6/5" and ruling["candidates"][0]["p"] > 0.5
    # kept beside the photo, entered in the game's log, and shown on the dispute view
    about = json.loads(kept[1].read_text())
    assert about["rulings"][-1]["verdict"] == "legal" and about["who"] == "Ann"
    entries = [e for e in companion.store.game(game_id)["log"] if e["kind"] == "photo"]
    assert [(e["data"]["photo"], e["data"]["verdict"]) for e in entries] == [(sent["photo"], "legal")]
    page = client.get("/dispute/1")
    assert page.status_code == 200 and f"/api/photos/{sent['photo']}.jpg" in page.text
    assert "legal (8/5 6/5)" in page.text
    # the game itself is untouched: the record and its replay still agree on one turn
    assert companion.state()["turns_played"] == 1


def test_forged_photo_addresses_and_corners_are_refused(served, photo):
    client, _companion, _folder = served
    token = log_in(client)
    assert client.get("/api/photos/..%2f..%2fgames.jpg").status_code == 404
    assert client.get("/api/photos/p-000000000000.jpg").status_code == 404
    sent = _upload(client, photo[0], token).json
    far = client.post(f"/api/photos/{sent['photo']}/judge", json={"corners": [[0, 0], [99999, 0], [1, 1], [0, 2]]},
                      headers={"X-CSRF-Token": token})
    assert far.status_code == 400 and "must lie in the photo" in far.json["error"]
    not_pairs = client.post(f"/api/photos/{sent['photo']}/judge", json={"corners": "C1"},
                            headers={"X-CSRF-Token": token})
    assert not_pairs.status_code == 400
