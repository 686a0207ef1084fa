"""The house holds its shape (docs/house-conventions.md, docs/architecture.md):
no two files import each other, round any circle; no import at a module's
foot; no docstring sends a reader to a file that does not exist; no part of
the companion reaches into another's private members.

The imports are read from the source (``ast``), not by importing it: an
import inside a function counts (a circle through a lazy import is still a
circle of files: neither can be read first), one under ``if
TYPE_CHECKING:`` does not (it is for the type checker alone).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "companion", "vision", "web_ui", "hardware", "firmware_bridge", "hub", "tools", "benchmarks")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            inside.update(id(n) for n in ast.walk(node))
    return inside


def imports_of(name: str) -> set[str]:
    """The project's modules that module *name* imports."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[:len(package) - (node.level - 1)] + ([node.module] if node.module else []))
            else:
                base = (node.module or "").removeprefix("willughby.")
            names = ([base] if node.module else []) + [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name.removeprefix("willughby.") for a in node.names]
        else:
            continue
        out.update(n for n in names if n in MODULES and n != name)
    return out


def import_circles() -> list[list[str]]:
    """The sets of modules that import each other round a circle (Tarjan's strongly connected components)."""
    graph = {name: imports_of(name) for name in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for name in graph:
        if name not in index:
            visit(name)
    return circles


def test_the_import_reader_sees_imports_of_every_kind() -> None:
    assert "engine.position" in imports_of("engine.moves")             # from .position import ...
    assert "engine.referee" in imports_of("companion.cli_games")       # from willughby.engine.referee import ...
    assert "vision.board_finder" in imports_of("companion.watch")      # inside a function


def test_no_two_files_import_each_other_round_a_circle() -> None:
    assert import_circles() == []


def test_no_import_at_a_modules_foot() -> None:
    """Every import of a module stands before its first function or class
    (an import after them is how a circle is hidden)."""
    late = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        seen_body = False
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                seen_body = True
            elif seen_body and isinstance(node, (ast.Import, ast.ImportFrom)):
                late.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert late == []


# a reference to one of the project's files: a path under one of its folders, or a module's file name
_FOLDERS = "|".join((*PACKAGES, "docs", "tests", "web_ui/static", "web_ui/templates"))
_PATH = re.compile(rf"(?<![\w./-])((?:{_FOLDERS})/[\w./-]*\w|[a-z_][a-z0-9_]*\.py)\b")
_NAMES = {p.name for p in ROOT.rglob("*")
          if not ({".git", "__pycache__"} & set(p.parts) or any(part.startswith(".venv") for part in p.parts))}


def _docstrings(tree: ast.AST) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text:
                out.append(text)
    return out


def test_no_docstring_names_a_file_that_does_not_exist() -> None:
    missing = []
    for name, path in MODULES.items():
        for text in _docstrings(ast.parse(path.read_text(encoding="utf-8"))):
            for match in _PATH.finditer(text):
                ref = match.group(1).rstrip(".")
                if "/" in ref:
                    there = (ROOT / ref).exists() or any((ROOT / ref).parent.glob((ROOT / ref).name))
                else:
                    there = ref in _NAMES
                if not there:
                    missing.append(f"{path.relative_to(ROOT)}: {ref}")
    assert sorted(set(missing)) == []


#: the families' own modules (and the table of games, whose rows name their family)
_FAMILY_MODULES = {"engine/options.py", "engine/families.py", "engine/race_referee.py", "engine/unstacking.py",
                   "engine/unstacking_referee.py", "engine/counting_throw.py", "engine/counting_game.py",
                   "engine/counting.py"}
# a family's name compared: `rules.family == "counting"`, `family.name != "unstacking"`, `state.family === "race"`
_NAME_COMPARED = re.compile(r"""(?:family|\.name)\W*\s*(?:==|!=|===|!==)\s*["'](?:race|unstacking|counting)["']""")


def test_no_family_name_is_compared_outside_the_families() -> None:
    """The referee, the companion, the page and the camera ask what a family
    declares (``engine/families.py``); only the families' own modules know
    their names."""
    compared = []
    for path in sorted(ROOT.glob("*/**/*.py")) + sorted((ROOT / "web_ui" / "static").glob("*.js")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.split("/")[0] not in PACKAGES[:6] + ("web_ui",) or rel in _FAMILY_MODULES:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _NAME_COMPARED.search(line):
                compared.append(f"{rel}:{n}: {line.strip()}")
    assert compared == []


#: the companion's parts (docs/architecture.md, "Who owns what"), each handed what it needs of the others
_PARTS = ("service", "current_game", "state", "judging", "way_back", "controls", "games", "board_part", "tally",
          "views", "dispute_photos")


def test_no_part_of_the_companion_reaches_into_anothers_private_members() -> None:
    """A part asks another through its public names (``way_back.Judge`` says what the way back asks of the
    judging): ``self._name`` is a part's own, ``other._name`` or ``self._part._name`` another's."""
    reached = []
    for part in _PARTS:
        path = ROOT / "companion" / f"{part}.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                reached.append(f"companion/{part}.py:{node.lineno}: {ast.unparse(node)}")
    assert reached == []
