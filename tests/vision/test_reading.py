"""A reading's board document: the men not seen are off, of as many men a
side as the game has."""

import pytest

from willughby.engine.position import Position
from willughby.vision.reader import Reading


def _reading(light, dark, bar=None):
    return Reading(light, dark, bar or {"light": 0, "dark": 0}, {"light": [0] * 24, "dark": [0] * 24},
                   1.0, {str(p): 1.0 for p in range(1, 25)}, True)


def test_a_fifteen_man_board_is_the_default():
    light = [0] * 24
    light[23], light[12], light[7], light[5] = 2, 5, 3, 5
    dark = [0] * 24
    dark[0], dark[11], dark[16], dark[18] = 2, 5, 3, 5
    doc = _reading(light, dark).to_board()
    assert doc["off"] == {"light": 0, "dark": 0}
    Position.from_board({k: doc[k] for k in ("format", "light", "dark", "bar", "off", "stacked")})


def test_a_twelve_man_game_is_read_with_its_own_number_of_men():
    # twelve men a side, two of light's on the bar and one borne off
    light = [0] * 24
    light[23], light[5] = 4, 5
    dark = [0] * 24
    dark[0], dark[18] = 6, 6
    reading = _reading(light, dark, {"light": 2, "dark": 0})
    assert reading.to_board()["off"] == {"light": 4, "dark": 3}          # as if 15 a side: wrong
    doc = reading.to_board(men_per_side=12)
    assert doc["off"] == {"light": 1, "dark": 0}
    assert sum(doc["light"]) + doc["bar"]["light"] + doc["off"]["light"] == 12


@pytest.mark.parametrize("bad", [0, -3, 12.0, True, "12"])
def test_men_per_side_must_be_a_whole_number(bad):
    with pytest.raises(ValueError, match="men_per_side"):
        _reading([0] * 24, [0] * 24).to_board(men_per_side=bad)
