"""``willughby games``, ``willughby export`` and ``willughby import``: the
stored games got out without the running page, as the page gives them; the
JSON read back and replayed to the same game, and imported into another
store to export the same again; the ``.mat`` file read by GNU Backgammon
itself."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from willughby.companion.cli import main
from willughby.companion.config import CompanionConfig
from willughby.companion.games import family_of_preset
from willughby.companion.records import RecordError, import_game, load_export, read_export
from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.engine.game import Game
from willughby.web_ui import create_app

from .test_matfile import gnubg_disagrees, gnubg_import, match_id_fields, needs_gnubg

PLAYERS = {"light": "Ann", "dark": "Bob"}


def play(c: Companion, rng: random.Random, limit: int = 3000) -> None:
    """Play on with random dice and random legal boards, *limit* steps at most."""
    for _ in range(limit):
        state = c.state()
        if state["phase"] == "over":
            return
        if state["phase"] in ("start", "throw"):
            c.enter_dice([rng.randint(1, 6) for _ in range(state["dice_wanted"])], who="test")
        else:
            plays = c.legal_boards()
            c.on_reading(plays[rng.choice(sorted(plays))], None, who="test")


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A data directory whose store holds, oldest first: a finished
    backgammon game, a finished doublets game, a finished sice-ace game of
    three, and a backgammon game in progress."""
    data = tmp_path_factory.mktemp("data")
    rng = random.Random(24)
    ids: dict[str, str] = {}
    with GameStore(CompanionConfig(data_dir=data).store_path) as store:
        c = Companion(store)
        for name, preset, options, players, steps in (
                ("backgammon", "backgammon", {}, PLAYERS, 3000),
                ("doublets", "doublets", {}, PLAYERS, 3000),
                ("sice-ace", "sice-ace", {"players": "3"}, ["Ann", "Bob", "Cat"], 3000),
                ("playing", "backgammon", {}, {"light": "Cat", "dark": "Dan"}, 14)):
            ids[name] = c.new_game(preset, options, players, who="test")["game_id"]
            play(c, rng, steps)
        games = {g["id"]: g for g in store.games()}
    assert [games[ids[k]]["status"] for k in ("backgammon", "doublets", "sice-ace")] == ["over"] * 3
    assert games[ids["playing"]]["status"] == "playing" and games[ids["playing"]]["turns"] > 0
    return {"dir": data, "ids": ids}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def page(data: Path) -> Any:
    """The page's JSON API over the same store (a companion of its own)."""
    store = GameStore(CompanionConfig(data_dir=data).store_path)
    return store, create_app(None, companion=Companion(store)).test_client()


# ------------------------------------------------------------------ games
def test_games_lists_every_game_newest_first_the_one_in_progress_marked(capsys, stored) -> None:
    status, out, err = run(capsys, "games", "--data-dir", str(stored["dir"]))
    assert status == 0 and err == ""
    head, *rows = out.splitlines()
    assert head.split() == ["ID", "STARTED", "PRESET", "PLAYERS", "TURNS", "RESULT", "STATUS"]
    ids = stored["ids"]
    assert [r.split()[0] for r in rows] == [ids["playing"], ids["sice-ace"], ids["doublets"], ids["backgammon"]]
    assert rows[0].endswith("in progress") and "Cat v Dan" in rows[0]
    assert all(r.endswith("over") for r in rows[1:])
    assert "Ann, Bob, Cat" in rows[1] and " pays, 1 point" in rows[1]
    assert " wins" in rows[2] and " wins" in rows[3]


def test_games_json_is_the_pages_list_of_games(capsys, stored) -> None:
    status, out, _ = run(capsys, "games", "--data-dir", str(stored["dir"]), "--json")
    assert status == 0
    store, client = page(stored["dir"])
    with store:
        assert json.loads(out) == client.get("/api/games").get_json()
    games = json.loads(out)["games"]
    assert {"id", "players", "preset", "turns", "result", "started", "status"} <= set(games[0])
    assert games[0]["status"] == "playing" and games[0]["result"] is None


def test_a_configuration_files_data_dir_is_read(capsys, stored, tmp_path) -> None:
    config = tmp_path / "willughby.toml"
    config.write_text(f'[companion]\ndata_dir = "{stored["dir"]}"\n', encoding="utf-8")
    assert run(capsys, "games", "--config", str(config)) == run(capsys, "games", "--data-dir", str(stored["dir"]))


def test_the_default_data_dir_is_that_of_serve_and_demo(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    status, out, _ = run(capsys, "games")
    assert (status, out) == (0, f"no games stored in {CompanionConfig().data_dir}\n")
    assert CompanionConfig().data_dir == tmp_path / "xdg" / "willughby"


def test_no_store_is_said_and_none_is_made(capsys, tmp_path) -> None:
    where = tmp_path / "nothing here"
    assert run(capsys, "games", "--data-dir", str(where)) == (0, f"no games stored in {where}\n", "")
    status, out, err = run(capsys, "games", "--data-dir", str(where), "--json")
    assert (status, json.loads(out)) == (0, {"games": []}) and "no games stored" in err
    assert run(capsys, "export", "g-1", "--data-dir", str(where)) == (
        2, "", f"willughby export: no games stored in {where}\n")
    assert not where.exists()


def test_a_file_that_is_no_store_is_one_line_and_status_2(capsys, tmp_path) -> None:
    (tmp_path / "games.sqlite").write_bytes(b"not a database at all, just some bytes" * 40)
    for argv in (["games"], ["export", "g-1"]):
        status, out, err = run(capsys, *argv, "--data-dir", str(tmp_path))
        assert (status, out) == (2, "") and err.count("\n") == 1
        assert err.startswith(f"willughby {argv[0]}: ") and "is not a Willughby game store" in err, err


# ------------------------------------------------------------------ export
@pytest.mark.parametrize("name", ["backgammon", "doublets", "sice-ace", "playing"])
def test_export_json_is_the_pages_export_document(capsys, stored, name) -> None:
    game_id = stored["ids"][name]
    status, out, _ = run(capsys, "export", game_id, "--format", "json", "--data-dir", str(stored["dir"]))
    assert status == 0
    store, client = page(stored["dir"])
    with store:
        assert json.loads(out) == client.get(f"/api/games/{game_id}/export.json").get_json()


def test_a_unique_prefix_names_the_game_with_or_without_g(capsys, stored, tmp_path) -> None:
    game_id = stored["ids"]["doublets"]
    others = [i for i in stored["ids"].values() if i != game_id]
    k = next(k for k in range(3, 15) if not any(o.startswith(game_id[:k]) for o in others))
    for prefix in (game_id[:k], game_id[2:k]):
        out = tmp_path / f"{prefix}.json"
        status, said, _ = run(capsys, "export", prefix, "--out", str(out), "--data-dir", str(stored["dir"]))
        assert status == 0 and said == f"exported game {game_id} (doublets, over) to {out}\n"
        assert json.loads(out.read_text(encoding="utf-8"))["id"] == game_id


@pytest.mark.parametrize("argv, says", [
    (["export", "zz"], "willughby export: no game 'zz' in {dir} (willughby games lists them)"),
    (["export", "g-"], "willughby export: 'g-' fits 4 games: "),
    (["export", ""], "willughby export: GAME must be a game's id"),
    (["export", "{backgammon}", "--format", "pdf"], "willughby export: argument --format: invalid choice: 'pdf'"),
    (["export", "{doublets}", "--format", "mat"], "willughby export: game {doublets} cannot be a .mat file: "),
    (["export", "{sice-ace}", "--format", "mat"], "willughby export: game {sice-ace} cannot be a .mat file: "),
    (["export", "{backgammon}", "--out", "{dir}/no/such/folder/x.json"], "willughby export: cannot write "),
    (["games", "--config", "x.toml"], "willughby games: argument --data-dir: not allowed with argument --config"),
])
def test_bad_input_is_one_line_and_status_2(capsys, stored, argv, says) -> None:
    names = dict(stored["ids"], dir=str(stored["dir"]))
    argv = [a.format(**names) for a in argv] + ["--data-dir", str(stored["dir"])]
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith(says.format(**names)) and err.count("\n") == 1, err


def test_a_game_in_progress_exports_what_it_has_and_says_so(capsys, stored, tmp_path) -> None:
    game_id = stored["ids"]["playing"]
    with GameStore(CompanionConfig(data_dir=stored["dir"]).store_path) as store:
        before = store.game(game_id)
    status, out, err = run(capsys, "export", game_id, "--data-dir", str(stored["dir"]))
    assert status == 0
    assert err == (f"willughby export: game {game_id} is still in progress: this is the game so far "
                   f"({before['turns']} turns)\n")
    doc = json.loads(out)
    assert doc["status"] == "playing" and doc["result"] is None and doc["turns_played"] == before["turns"]
    status, _, err = run(capsys, "export", game_id, "--format", "mat", "--out", str(tmp_path / "so-far.mat"),
                         "--data-dir", str(stored["dir"]))
    assert status == 0 and "still in progress" in err
    assert " 1)" in (tmp_path / "so-far.mat").read_text(encoding="utf-8")
    with GameStore(CompanionConfig(data_dir=stored["dir"]).store_path) as store:
        assert store.game(game_id) == before          # exporting wrote nothing


# ------------------------------------------------------- the JSON read back
@pytest.mark.parametrize("name", ["backgammon", "doublets", "sice-ace", "playing"])
def test_the_exported_json_reads_back_to_the_same_record_position_result_and_turns(
        capsys, stored, tmp_path, name) -> None:
    game_id = stored["ids"][name]
    out = tmp_path / "game.json"
    assert run(capsys, "export", game_id, "--out", str(out), "--data-dir", str(stored["dir"]))[0] == 0
    game = load_export(out)
    with GameStore(CompanionConfig(data_dir=stored["dir"]).store_path) as store:
        summary = store.game(game_id)
        record = store.record(game_id)
    family = family_of_preset(record["preset"])
    original = family.from_record(record)          # the store's own reader: how the companion resumes
    assert game.game_id == game_id and game.preset == record["preset"] and game.family == family.name
    assert game.match.record() == original.record()
    if family.name != "counting":
        assert game.record == record               # the store's record, as the store gives it
        assert game.match.position == original.position
    else:
        assert game.match.tally == original.tally
    assert game.result == summary["result"] and game.status == summary["status"]
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert game.turns == doc["turns_played"] == len([t for t in doc["turns"] if t["verdict"] == "legal"])
    assert game.turns == (len(record["actions"]) if family.name == "counting" else summary["turns"])
    assert (game.status == "over") == (name != "playing")


def test_a_bare_record_reads_back_too() -> None:
    m = Game.new("backgammon", players=PLAYERS)
    m.start_roll(6, 2)
    assert m.play_notation("24/18 13/11").legal
    game = read_export(m.record())
    assert (game.game_id, game.status, game.turns, game.match.position) == (None, "playing", 1, m.position)


def _exported(stored: dict[str, Any], name: str) -> dict[str, Any]:
    with GameStore(CompanionConfig(data_dir=stored["dir"]).store_path) as store:
        from willughby.companion.views import stored_game

        return json.loads(json.dumps(stored_game(store, stored["ids"][name])))


def _move(doc: dict[str, Any]) -> dict[str, Any]:
    return next(a for a in doc["record"]["actions"] if a["type"] == "move" and a["verdict"] == "legal")


@pytest.mark.parametrize("name, spoil, says", [
    ("backgammon", lambda d: [1, 2], "an exported game is a JSON object, not [1, 2]"),
    ("backgammon", lambda d: d.update(record="x"), "the record must be an object"),
    ("backgammon", lambda d: d["record"].update(format="willughby-game/9"), "not a Willughby game record"),
    ("backgammon", lambda d: d["record"].update(preset="chess"), "the record's preset: unknown preset 'chess'"),
    ("backgammon", lambda d: d.update(preset="irish"), "the document's preset 'irish' is not"),
    ("backgammon", lambda d: d["record"].update(options={"cube": 1}), "the record's options must be"),
    ("backgammon", lambda d: d["record"].update(start=None), "the record's start must be a position id"),
    ("backgammon", lambda d: d["record"].update(actions={}), "the record's actions must be a list"),
    ("backgammon", lambda d: d["record"]["actions"].insert(3, ["move"]), "the record's action 3 is not"),
    ("backgammon", lambda d: d["record"]["actions"].append({"type": "teleport"}), "the record does not replay"),
    ("backgammon", lambda d: _move(d).update(after=d["record"]["start"]), "the record does not replay: "),
    ("backgammon", lambda d: d["record"]["result"].update(stake=64), "the record's result"),
    ("backgammon", lambda d: d["record"].update(result=None), "the record's result null is not"),
    ("backgammon", lambda d: d.update(status="won"), "status must be one of playing, over, abandoned"),
    ("playing", lambda d: d.update(status="over"), "the game is over but its replay does not end it"),
    ("doublets", lambda d: d.update(turns_played=1), "the document says 1 turns were played"),
    ("sice-ace", lambda d: d["record"]["actions"][0].update(dice=[7, 1]), "the record does not replay"),
    ("sice-ace", lambda d: d["record"].update(players=None), "the record's players must be"),
    ("backgammon", lambda d: d["record"].update(players={"light": "Ann", "blue": "Bob"}), "the record does not replay"),
])
def test_a_malformed_export_is_refused_in_one_line_naming_the_fault(stored, name, spoil, says) -> None:
    doc = _exported(stored, name)
    spoilt = spoil(doc)
    with pytest.raises(RecordError) as caught:
        read_export(doc if spoilt is None else spoilt)
    assert str(caught.value).startswith(says) and "\n" not in str(caught.value), str(caught.value)


def test_a_file_that_is_not_json_is_named(tmp_path) -> None:
    path = tmp_path / "game.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(RecordError, match=r"game\.json is not JSON"):
        load_export(path)
    with pytest.raises(RecordError, match="no file"):
        load_export(tmp_path / "missing.json")


# ------------------------------------------------------------ import
def _export_to(capsys, stored, name: str, path: Path) -> dict[str, Any]:
    game_id = stored["ids"][name]
    assert run(capsys, "export", game_id, "--out", str(path), "--data-dir", str(stored["dir"]))[0] == 0
    return json.loads(path.read_text(encoding="utf-8"))


def _listed(capsys, data: Path) -> dict[str, dict[str, Any]]:
    status, out, _ = run(capsys, "games", "--json", "--data-dir", str(data))
    assert status == 0
    return {g["id"]: g for g in json.loads(out)["games"]}


def _store_of(data: Path) -> GameStore:
    return GameStore(CompanionConfig(data_dir=data).store_path)


# a race, an unstacking game, a counting game, and a race still in progress when exported
@pytest.mark.parametrize("name", ["backgammon", "doublets", "sice-ace", "playing"])
def test_an_export_imports_into_a_fresh_store_and_exports_the_same_again(capsys, stored, tmp_path, name) -> None:
    game_id = stored["ids"][name]
    doc = _export_to(capsys, stored, name, tmp_path / "game.json")
    fresh = tmp_path / "fresh"
    status, out, err = run(capsys, "import", str(tmp_path / "game.json"), "--data-dir", str(fresh))
    stored_as = "abandoned" if name == "playing" else "over"
    assert status == 0
    assert out == f"imported game {game_id} ({doc['preset']}, {stored_as}, {doc['turns_played']} turns) into {fresh}\n"
    if name == "playing":              # its status and end are what differ, and a line says so
        assert err == (f"willughby import: game {game_id}: it was in progress when exported: imported as "
                       "abandoned (the game in progress here is not touched)\n")
    else:
        assert err == ""
    [(listed_id, listed)] = _listed(capsys, fresh).items()
    original = _listed(capsys, stored["dir"])[game_id]
    assert listed_id == game_id and original["status"] == doc["status"]
    for key in ("preset", "options", "players", "start", "started", "turns", "result"):
        assert listed[key] == original[key], key
    assert listed["status"] == stored_as
    row = run(capsys, "games", "--data-dir", str(fresh))[1].splitlines()[1]
    [original_row] = [r for r in run(capsys, "games", "--data-dir", str(stored["dir"]))[1].splitlines()
                      if r.startswith(game_id)]
    was = "in progress" if name == "playing" else "over"
    assert row.endswith(stored_as) and original_row.endswith(was)
    # the id, the start, the preset, the players, the turns and the result
    assert row[:-len(stored_as)].split() == original_row[:-len(was)].split()
    again = json.loads(run(capsys, "export", game_id, "--data-dir", str(fresh))[1])
    if name == "playing":
        assert again["ended"] >= again["log"][-1]["at"] and doc["ended"] is None
        assert {k: v for k, v in again.items() if k not in ("status", "ended")} == \
            {k: v for k, v in doc.items() if k not in ("status", "ended")}
    else:
        assert again == doc            # every field, the whole log with its numbers, kinds, who and times
    # the imported game replays as the original does (how the companion rebuilds a stored game)
    with _store_of(fresh) as theirs, _store_of(stored["dir"]) as ours:
        family = family_of_preset(doc["preset"])
        assert family.from_record(theirs.record(game_id)).record() == family.from_record(ours.record(game_id)).record()
        assert theirs.game(game_id)["log"] == ours.game(game_id)["log"]


def test_importing_twice_or_into_the_store_it_came_from_writes_nothing(capsys, stored, tmp_path) -> None:
    fresh = tmp_path / "fresh"
    for name in ("doublets", "playing"):
        path = tmp_path / f"{name}.json"
        doc = _export_to(capsys, stored, name, path)
        assert run(capsys, "import", str(path), "--data-dir", str(fresh))[0] == 0
        with _store_of(fresh) as store:
            before = store.game(doc["id"])
        status, out, err = run(capsys, "import", str(path), "--data-dir", str(fresh))
        assert (status, err) == (0, "")
        assert out.startswith(f"game {doc['id']} (") and out.endswith(f") is in {fresh} already: nothing imported\n")
        with _store_of(fresh) as store:
            assert store.game(doc["id"]) == before and len(store.games()) == (1 if name == "doublets" else 2)
        with _store_of(stored["dir"]) as store:
            before = store.games()
        status, out, _ = run(capsys, "import", str(path), "--data-dir", str(stored["dir"]))
        assert status == 0 and out.endswith("already: nothing imported\n")
        with _store_of(stored["dir"]) as store:
            assert store.games() == before         # the game in progress there still in progress


def test_the_game_in_progress_is_not_touched_by_an_import(capsys, stored, tmp_path) -> None:
    data = tmp_path / "data"
    with _store_of(data) as store:
        here = store.create_game("backgammon", {}, PLAYERS, Game.new("backgammon").position.id())
        store.append(here, "action", {"type": "start_roll", "light": 3, "dark": 1}, "referee")
        before = store.game(here)
    _export_to(capsys, stored, "playing", tmp_path / "so-far.json")
    assert run(capsys, "import", str(tmp_path / "so-far.json"), "--data-dir", str(data))[0] == 0
    with _store_of(data) as store:
        assert store.current()["id"] == here and store.game(here) == before
        assert {g["status"] for g in store.games() if g["id"] != here} == {"abandoned"}


def test_an_id_another_game_has_here_gives_a_new_id_and_says_so(capsys, stored, tmp_path) -> None:
    fresh = tmp_path / "fresh"
    taken = stored["ids"]["backgammon"]
    _export_to(capsys, stored, "backgammon", tmp_path / "bg.json")
    assert run(capsys, "import", str(tmp_path / "bg.json"), "--data-dir", str(fresh))[0] == 0
    doc = _export_to(capsys, stored, "sice-ace", tmp_path / "sa.json")
    doc.update(id=taken, game_id=taken)            # another game that drew the same id
    (tmp_path / "sa.json").write_text(json.dumps(doc), encoding="utf-8")
    status, out, err = run(capsys, "import", str(tmp_path / "sa.json"), "--data-dir", str(fresh))
    new_id = out.split()[2]
    assert status == 0 and new_id != taken and new_id.startswith("g-")
    assert err == f"willughby import: game {taken}: the store has another game {taken}: imported as {new_id}\n"
    again = json.loads(run(capsys, "export", new_id, "--data-dir", str(fresh))[1])
    assert again == dict(doc, id=new_id, game_id=new_id)
    assert set(_listed(capsys, fresh)) == {taken, new_id}


def test_the_same_game_with_other_content_is_refused(capsys, stored, tmp_path) -> None:
    fresh = tmp_path / "fresh"
    doc = _export_to(capsys, stored, "doublets", tmp_path / "game.json")
    assert run(capsys, "import", str(tmp_path / "game.json"), "--data-dir", str(fresh))[0] == 0
    with _store_of(fresh) as store:
        before = store.game(doc["id"])
    entry = next(e for e in doc["log"] if e["kind"] == "announcement")
    entry["data"] = {"text": "edited afterwards"}
    (tmp_path / "edited.json").write_text(json.dumps(doc), encoding="utf-8")
    status, out, err = run(capsys, "import", str(tmp_path / "edited.json"), "--data-dir", str(fresh))
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"willughby import: {tmp_path / 'edited.json'}: game {doc['id']} is in the store "
                          "already with other content (its log differs; the store's log has "), err
    with _store_of(fresh) as store:
        assert store.games() == [dict((k, v) for k, v in before.items() if k != "log")]


def _last_move(d: dict[str, Any]) -> dict[str, Any]:
    """The log entry of the move that ended the game (one that stands: an undone one is not in the record)."""
    return next(e for e in reversed(d["log"]) if e["kind"] == "action" and e["data"].get("type") == "move")


def _spoil_action(d: dict[str, Any]) -> None:
    entry = _last_move(d)
    entry["data"] = dict(entry["data"], play="24/1")


def _drop_last_move(d: dict[str, Any]) -> None:
    entry = _last_move(d)
    d["log"] = [dict(e, n=k) for k, e in enumerate(e for e in d["log"] if e is not entry)]


@pytest.mark.parametrize("name, spoil, says", [
    ("backgammon", lambda d: "{not json", "{file} is not JSON"),
    ("backgammon", lambda d: d["record"], "{file}: a bare game record has no log"),
    ("backgammon", lambda d: d["record"]["result"].update(stake=64), "{file}: the record's result"),
    ("backgammon", lambda d: d.update(log="lost"), "{file}: the document's log must be a list"),
    ("backgammon", lambda d: d.pop("id") and None, "{file}: the document's id must be a game's id"),
    ("backgammon", lambda d: d.update(id="game 1"), "{file}: the store refuses it: a game's id is g- and 12"),
    ("doublets", lambda d: d["log"][3].update(n=7), "{file}: the store refuses it: log entry 3 is numbered 7"),
    ("doublets", lambda d: d["log"][2].update(kind="Reading!"), "{file}: the store refuses it: log entry 2: kind"),
    ("doublets", lambda d: d["log"].append(dict(d["log"][-1], n=len(d["log"]), kind="undo", data={"undoes": [0]})),
     "{file}: the store refuses it: entry "),
    ("doublets", lambda d: d["log"][1].update(at="noon"), "{file}: the store refuses it: log entry 1: at"),
    ("backgammon", _spoil_action, "{file}: the document is not what its log stores: the actions of its log do "
                                  "not replay: action "),
    ("backgammon", _drop_last_move, "{file}: the document is not what its log stores: its record, turns, "
                                    "turns_played differ"),
    ("backgammon", lambda d: d["turns"][0].update(play="24/1"), "{file}: the document is not what its log stores: "
                                                               "its turns differs"),
    ("sice-ace", lambda d: d.update(players=["Ann", "Bob", "Eve"]), "{file}: the document is not what its log "
                                                                   "stores: its players differs"),
    ("sice-ace", lambda d: d.update(started=None), "{file}: the store refuses it: the game's started"),
    ("sice-ace", lambda d: d.update(extra=1), "{file}: the document is not what its log stores: its extra differs"),
    # the bounds of live input (issue 46): a time no calendar shows, a nesting bomb
    ("backgammon", lambda d: d.update(started=1e300), "{file}: the store refuses it: the game's started"),
    ("backgammon", lambda d: d["log"][1].update(at=-5.0), "{file}: the store refuses it: log entry 1: at"),
    ("backgammon", lambda d: "[" * 100_000 + "]" * 100_000, "{file}: the document nests deeper than 32 levels"),
    ("backgammon", lambda d: d["log"][1].update(data=json.loads("[" * 40 + "]" * 40)),
     "{file}: the document nests deeper than 32 levels"),
    ("backgammon", lambda d: d["log"][1]["data"].update(padding="x" * 300_000),
     "{file}: log entry 1 weighs 300"),
])
def test_a_malformed_or_tampered_file_is_refused_and_nothing_is_stored(capsys, stored, tmp_path, name, spoil,
                                                                       says) -> None:
    path = tmp_path / "game.json"
    doc = _export_to(capsys, stored, name, path)
    spoilt = spoil(doc)                 # None: *doc* spoilt in place; text: the file's text
    spoilt = doc if spoilt is None else spoilt
    path.write_text(spoilt if isinstance(spoilt, str) else json.dumps(spoilt), encoding="utf-8")
    fresh = tmp_path / "fresh"
    status, out, err = run(capsys, "import", str(path), "--data-dir", str(fresh))
    assert (status, out) == (2, "") and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("willughby import: " + says.format(file=path)), err
    assert _listed(capsys, fresh) == {}


def test_a_file_heavier_than_any_export_is_not_read(capsys, tmp_path) -> None:
    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        f.truncate(65 * 1024 * 1024)              # sparse: nothing to write, nothing read
    status, out, err = run(capsys, "import", str(path), "--data-dir", str(tmp_path / "fresh"))
    assert (status, out) == (2, "")
    assert err == f"willughby import: {path} weighs more than 64 MB, more than any exported game: not read\n"


def test_one_bad_game_in_the_store_never_stops_the_others_being_listed(capsys, stored, tmp_path) -> None:
    """An import of started 1e300 used to be taken, and then games and the page's /games failed for good."""
    import shutil
    import sqlite3

    data = tmp_path / "data"
    shutil.copytree(stored["dir"], data)
    bad = stored["ids"]["doublets"]
    with sqlite3.connect(CompanionConfig(data_dir=data).store_path) as conn:   # as a store written before the bound
        conn.execute("UPDATE games SET started = 1e300, ended = 1e300 WHERE id = ?", (bad,))
    status, out, err = run(capsys, "games", "--data-dir", str(data))
    assert status == 0 and err == "" and all(game_id in out for game_id in stored["ids"].values())
    store, client = page(data)
    try:
        response = client.get("/games")
        assert response.status_code == 200 and bad in response.get_data(as_text=True)
        assert client.get("/api/games").status_code == 200
    finally:
        store.close()
    assert run(capsys, "export", stored["ids"]["backgammon"], "--data-dir", str(data))[0] == 0


def test_an_import_is_one_transaction(stored, tmp_path) -> None:
    """A check that fails after the last entry leaves nothing: not the row, not one entry."""
    doc = _exported(stored, "doublets")
    with GameStore(tmp_path / "games.sqlite") as store:
        def fails(game_id: str) -> None:
            assert len(store.game(game_id)["log"]) == len(doc["log"])    # all of it written, then...
            raise RecordError("no")
        row = dict(doc, players={"light": "Ann", "dark": "Bob"})
        with pytest.raises(RecordError):
            store.insert_game(row, doc["log"], check=fails)
        assert store.games() == []
        with pytest.raises(ValueError, match="never 'playing'"):
            store.insert_game(dict(row, status="playing", result=None), doc["log"])
        assert import_game(store, doc).game_id == doc["id"] and len(store.games()) == 1


def test_import_reads_standard_input(capsys, stored, tmp_path, monkeypatch) -> None:
    import io

    doc = _exported(stored, "sice-ace")
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(doc)))
    status, out, _ = run(capsys, "import", "-", "--data-dir", str(tmp_path / "fresh"))
    assert status == 0 and out.startswith(f"imported game {doc['id']} (sice-ace, over, ")
    monkeypatch.setattr("sys.stdin", io.StringIO("[1, 2]"))
    assert run(capsys, "import", "-", "--data-dir", str(tmp_path / "other"))[:2] == (2, "")
    assert not (tmp_path / "other").exists()


# ---------------------------------------------------- .mat into GNU Backgammon
@needs_gnubg
def test_the_mat_of_a_finished_game_imports_into_gnubg_with_its_winner_and_points(capsys, stored, tmp_path) -> None:
    game_id = stored["ids"]["backgammon"]
    out = tmp_path / "finished game.mat"
    status, _, err = run(capsys, "export", game_id[:8], "--format", "mat", "--out", str(out),
                         "--data-dir", str(stored["dir"]))
    assert status == 0 and err == ""
    with GameStore(CompanionConfig(data_dir=stored["dir"]).store_path) as store:
        record, result = store.record(game_id), store.game(game_id)["result"]
    [theirs] = gnubg_import([out], tmp_path / "gnubg.json")
    fields = match_id_fields(theirs["match_id"])
    won = (result["stake"], 0) if result["winner"] == "light" else (0, result["stake"])
    assert (fields["score0"], fields["score1"]) == won       # gnubg's player 0 is light, the left column
    assert result["stake"] >= 1
    assert gnubg_disagrees(Game.from_record(record), 0, theirs) == []


MAT_REFUSED = ("is a GNU Backgammon match file (.mat), which is not imported: only the JSON that willughby export "
               "writes (--format json) is")


@pytest.mark.parametrize("file_name, content", [
    ("game.mat", "exported"),                                    # what export --format mat wrote
    ("game.txt", "exported"),                                    # the same, named otherwise: its start says
    ("headless.mat", " 3 point match\n\n Game 1\n Ann : 0                 Bob : 0\n  1) 31: 8/5 6/5\n"),
    ("spoilt.mat", "not a match at all\n"),                      # named .mat, and not JSON
    ("latin.mat", "; [Player 1 \"Jos\xe9\"]\n"),                 # a .mat in latin-1, as some programs write
])
def test_a_mat_file_is_refused_in_one_line_saying_only_json_is_imported(capsys, stored, tmp_path, file_name,
                                                                       content) -> None:
    path = tmp_path / file_name
    if content == "exported":
        game_id = stored["ids"]["backgammon"]
        assert run(capsys, "export", game_id, "--format", "mat", "--out", str(path),
                   "--data-dir", str(stored["dir"]))[0] == 0
        assert path.read_text(encoding="utf-8").startswith("; [")
    else:
        path.write_bytes(content.encode("latin-1"))
    fresh = tmp_path / "fresh"
    status, out, err = run(capsys, "import", str(path), "--data-dir", str(fresh))
    assert (status, out) == (2, "")
    assert err == f"willughby import: {path} {MAT_REFUSED}\n"
    assert not fresh.exists()


def test_a_json_export_named_mat_is_still_imported(capsys, stored, tmp_path) -> None:
    path = tmp_path / "game.mat"
    _export_to(capsys, stored, "doublets", path)
    status, out, _ = run(capsys, "import", str(path), "--data-dir", str(tmp_path / "fresh"))
    assert status == 0 and out.startswith("imported game ")
