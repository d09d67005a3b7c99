"""The compiled-code cache: one folder per source fingerprint, so compiled code never outlives its source."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from numba import njit
from numba.core.errors import NumbaWarning

from experiments.cli import main
from sim import compile_cache, config
from sim.compile_cache import fingerprint, writable_folder


def _tree(root: Path) -> Path:
    for name, text in {"sim/__init__.py": "", "sim/a.py": "from sim import b\n\n\ndef f():\n    import sim.c\n",
                       "sim/b.py": "B = 2\n", "sim/c.py": "C = 3\n", "sim/d.py": "D = 4\n",
                       "agents/e.py": "from sim.d import D\n", "tests/t.py": "import sim.a\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_fingerprint_follows_its_module_and_every_module_it_imports_and_nothing_else(tmp_path):
    root = _tree(tmp_path / "tree")

    def prints() -> dict[str, str]:
        compile_cache.imported_modules.cache_clear()
        compile_cache.fingerprint.cache_clear()
        return {name: fingerprint(frozenset({name}), root) for name in ("sim.a", "sim.d", "agents.e")}

    before = prints()
    for name, changed in (("sim/b.py", {"sim.a"}), ("sim/c.py", {"sim.a"}), ("sim/d.py", {"sim.d", "agents.e"}),
                          ("tests/t.py", set()), ("sim/__init__.py", set())):
        (root / name).write_text((root / name).read_text() + "# edited\n")
        after = prints()
        assert {m for m in before if after[m] != before[m]} == changed, name
        before = after


def test_a_module_keeps_its_most_recently_used_fingerprints_and_drops_the_oldest(tmp_path):
    module = tmp_path / "sim.kernels"
    for k in range(compile_cache.KEEP + 2):
        compile_cache.use(module / f"print{k}")
        os.utime(module / f"print{k}", (1000 + k, 1000 + k))
    compile_cache.use(module / "now")
    kept = sorted(p.name for p in module.iterdir())
    assert kept == sorted(["now"] + [f"print{k}" for k in range(3, compile_cache.KEEP + 2)])


def test_an_unwritable_base_falls_back_to_the_next_and_none_means_no_cache(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    chosen = writable_folder([blocked / "cache", tmp_path / "fallback"])
    assert chosen is not None and chosen.base == tmp_path / "fallback" and chosen.path.is_dir()
    assert writable_folder([blocked / "cache"]) is None


def test_the_cache_base_is_moved_by_its_environment_variable(monkeypatch, tmp_path):
    monkeypatch.setenv(compile_cache.BASE_ENV, str(tmp_path / "mine"))
    assert compile_cache.default_base() == tmp_path / "mine"
    monkeypatch.delenv(compile_cache.BASE_ENV)
    assert compile_cache.default_base().name == "knorri-sim"


def test_this_process_compiles_a_kernel_into_its_modules_fingerprint_folder():
    import numba

    assert config.CACHE is not None and config.KERNEL["cache"]
    other = config.CACHE.path / compile_cache.OTHER / compile_cache.tree_fingerprint()
    assert numba.config.CACHE_DIR == os.environ["NUMBA_CACHE_DIR"] == str(other)  # kernels outside the packages
    from sim.knockout_whist.compiled import kernels

    name = "sim.knockout_whist.compiled.kernels"
    assert Path(kernels.choices._cache._cache_path) == config.CACHE.path / name / fingerprint(frozenset({name}))


# A scratch copy of the packages: print the compiled exchange decision's special id, the constant Python
# sees, whether the kernel was cached before and after the call, and the cache folder.
PROBE = """
import json
from sim import compile_cache, config
from sim.knockout_whist import encoding
from sim.knockout_whist.compiled import kernels, new_position, state
KERNELS = ["sim.knockout_whist.compiled.kernels"]
cached_before = compile_cache.kernels_cached(KERNELS)
cards, ints, _, _ = new_position()
ints[state.I_PHASE] = state.P_EXCHANGE
print(json.dumps({"compiled": int(kernels.choices(cards, ints)[1]), "python": encoding.END_EXCHANGE,
                  "before": cached_before, "after": compile_cache.kernels_cached(KERNELS),
                  "folder": str(kernels.choices._cache._cache_path)}))
"""


def _probe(tree: Path, base: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), compile_cache.BASE_ENV: str(base)}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_compiled_code_follows_an_edited_constant_in_a_file_the_kernel_only_imports(tmp_path):
    tree = tmp_path / "tree"
    for package in compile_cache.SOURCE_PACKAGES:
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    base = tmp_path / "cache"
    first = _probe(tree, base)
    assert (first["compiled"], first["python"], first["before"], first["after"]) == (58, 58, False, True)
    assert _probe(tree, base)["before"]  # unchanged sources: the second process loads the machine code
    encoding = tree / "sim" / "knockout_whist" / "encoding.py"
    encoding.write_text(encoding.read_text().replace("END_EXCHANGE = 58", "END_EXCHANGE = 57"))
    second = _probe(tree, base)
    assert (second["compiled"], second["python"], second["before"]) == (57, 57, False)
    assert second["folder"] != first["folder"]


def test_another_copy_of_the_same_sources_loads_the_compiled_code_and_an_edit_elsewhere_keeps_it(tmp_path):
    # A second clone or install (another path, other file times) finds the code compiled; an edit to a module
    # the kernel does not import leaves its fingerprint, so its code, as it was.
    trees = [tmp_path / "one", tmp_path / "two"]
    for tree in trees:
        for package in compile_cache.SOURCE_PACKAGES:
            shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    base = tmp_path / "cache"
    assert not _probe(trees[0], base)["before"]
    unrelated = trees[1] / "sim" / "kort" / "rules.py"
    unrelated.write_text(unrelated.read_text() + "\n# edited\n")
    assert _probe(trees[1], base)["before"]


# Compile the three state-row accessors of one column (argv[1]), or load those of columns 1 and 2 and read
# them all from one kernel: each must read its own column.
ACCESSORS = """
import json, sys
import numpy as np
from numba import njit
from sim.compiled_bits import row_field, row_field_at, row_flag
row = np.array([7, -1, 5, 9], dtype=np.int64)
if sys.argv[1] != "both":
    column = int(sys.argv[1])
    print(row_field(column, "")(row), row_field_at(column, "")(row, 1), row_flag(column, "")(row))
else:
    field1, at1, flag1 = row_field(1, ""), row_field_at(1, ""), row_flag(1, "")
    field2, at2, flag2 = row_field(2, ""), row_field_at(2, ""), row_flag(2, "")

    @njit
    def read_all(r):
        return field1(r), field2(r), at1(r, 1), at2(r, 1), flag1(r), flag2(r)

    print(json.dumps([int(v) for v in read_all(row)]))
"""


def _accessors(tree: Path, base: Path, which: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree), compile_cache.BASE_ENV: str(base)}
    done = subprocess.run([sys.executable, "-c", ACCESSORS, which], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_accessors_of_other_columns_compiled_by_other_processes_keep_their_columns_in_one_kernel(tmp_path):
    # Numba names machine code by qualified name and a per-process counter: two processes compiling the
    # same factory's accessor for different columns gave both one symbol, and a kernel linking the two
    # cached bodies read one column twice (a Knockout Whist run cached after a Knorri run played other games).
    tree = tmp_path / "tree"
    for package in compile_cache.SOURCE_PACKAGES:
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    base = tmp_path / "cache"
    assert _accessors(tree, base, "1").split() == ["-1", "5", "False"]
    assert _accessors(tree, base, "2").split() == ["5", "9", "True"]
    assert json.loads(_accessors(tree, base, "both")) == [-1, 5, 5, 9, 0, 1]



# Call the kernels sim.choice_kernels builds for Knockout Whist (a zeroed position: the game is over, so each
# kernel runs its whole body cheaply) and print, per kernel, the signatures loaded from the cache and compiled.
SHARED_KERNELS = """
import json
import numpy as np
from sim.knockout_whist import encoding, tensor
from sim.knockout_whist.compiled import batch_kernels, kernels, new_position
cards, ints, deck, rng = new_position()
ints[:] = -1
rows_c, rows_i = cards[None, :], ints[None, :]
legal = np.zeros(encoding.NUM_ACTIONS, dtype=np.int64)
kernels.legal_actions(cards, ints, legal)
kernels.is_legal(cards, ints, 0)
batch_kernels.batch_legal_mask(rows_c, rows_i, np.zeros((1, encoding.NUM_ACTIONS), dtype=np.bool_), legal)
batch_kernels.batch_first_illegal(rows_c, rows_i, np.zeros(1, dtype=np.int64))
batch_kernels.batch_observe(rows_c, rows_i, np.zeros((1, tensor.OBSERVATION_SIZE), dtype=np.float32))
shared = [kernels.legal_actions, kernels.is_legal, batch_kernels.batch_legal_mask,
          batch_kernels.batch_first_illegal, batch_kernels.batch_observe]
print(json.dumps({k.__name__: [sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values())]
                  for k in shared}))
"""


def test_kernels_built_by_the_shared_factories_load_from_the_cache_in_the_next_process(tmp_path):
    # A factory's kernels are closures; numba keys a closure's cache entry by its captured values, pickled. They
    # capture the engine's modules (pickled by name), not its compiled functions (pickled with an id new in each
    # process, which made every process compile them again).
    tree = tmp_path / "tree"
    for package in compile_cache.SOURCE_PACKAGES:
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tree), compile_cache.BASE_ENV: str(tmp_path / "cache")}

    def counts() -> dict:
        done = subprocess.run([sys.executable, "-c", SHARED_KERNELS], cwd=tree, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    first, second = counts(), counts()
    assert set(first) == {"legal_actions_knockout_whist", "is_legal_knockout_whist",
                          "batch_legal_mask_knockout_whist", "batch_first_illegal_knockout_whist",
                          "batch_observe_knockout_whist"}
    assert all(misses == 1 and hits == 0 for hits, misses in first.values()), first
    assert all(hits == 1 and misses == 0 for hits, misses in second.values()), second

@pytest.fixture
def scratch_cache(monkeypatch, tmp_path):
    """The CLI pointed at a scratch cache folder (the real one stays untouched): one kernel of this tree's, an
    older fingerprint of its module, and another numba's folder."""
    folder = writable_folder([tmp_path / "base"])
    name = "sim.compiled_bits"
    current = folder.path / name / fingerprint(frozenset({name}))
    current.mkdir(parents=True)
    (current / "k.nbi").write_bytes(b"x" * 1000)
    (folder.path / name / "older").mkdir()
    (folder.base / "numba-0.0-cpython-00" / name).mkdir(parents=True)
    monkeypatch.setattr(config, "CACHE", folder)
    return folder


def test_cache_info_names_the_folder_the_kernels_and_what_else_is_kept(scratch_cache, capsys):
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert str(scratch_cache.path) in out
    assert "1 module of this source tree" in out and "1 compiled kernels" in out
    assert "1 older or other trees' fingerprint," in out and "1 other folder under the base" in out


def test_cache_clear_removes_the_code_this_tree_uses_and_all_removes_everything(scratch_cache, capsys):
    name = "sim.compiled_bits"
    assert main(["cache", "clear"]) == 0
    assert "1 folder," in capsys.readouterr().out
    assert [p.name for p in (scratch_cache.path / name).iterdir()] == ["older"]
    assert main(["cache", "clear", "--all"]) == 0
    assert not any(scratch_cache.base.iterdir())


def test_cache_commands_say_so_when_nothing_is_cached(monkeypatch, capsys):
    monkeypatch.setattr(config, "CACHE", None)
    assert main(["cache", "info"]) == 0
    assert "not cached" in capsys.readouterr().out


# A kernel slow enough to compile (a long chain of arithmetic) that two processes released at once would both
# compile it if nothing made one wait; each process prints whether it loaded the code or compiled it.
SLOW_KERNEL = "from numba import njit\n\n\n@njit(cache=True)\ndef slow(x):\n" + "".join(
    f"    x = (x * {k + 3} + {k}) % 1000003\n" for k in range(400)) + "    return x\n"
RACE = """
import json, sys, time
from pathlib import Path
import sim.config  # the cache folder and its compile locks
import slow_kernel
go = Path(sys.argv[1])
while not go.exists():
    time.sleep(0.005)
slow_kernel.slow(7)
stats = slow_kernel.slow.stats
print(json.dumps([sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]))
"""


def test_two_processes_needing_one_uncached_kernel_compile_it_once_between_them(tmp_path):
    (tmp_path / "slow_kernel.py").write_text(SLOW_KERNEL)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", compile_cache.BASE_ENV: str(tmp_path / "cache")}
    go = tmp_path / "go"
    racers = [subprocess.Popen([sys.executable, "-c", RACE, str(go)], cwd=tmp_path, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    go.touch()
    outcomes = []
    for racer in racers:
        out, err = racer.communicate(timeout=600)
        assert racer.returncode == 0, err
        outcomes.append(json.loads(out))
    assert sorted(outcomes) == [[0, 1], [1, 0]]  # one compiled it, the other waited and loaded its code


_LABS = ctypes.CDLL(None).labs  # C's labs: a kernel calling it holds a raw pointer, which numba cannot cache
_LABS.restype, _LABS.argtypes = ctypes.c_long, [ctypes.c_long]


def _absolute(x):
    return _LABS(x)


def test_a_kernel_that_cannot_be_cached_warns_and_runs(monkeypatch, tmp_path):
    """Numba refuses to cache a kernel holding a raw pointer (a C function through ctypes): the kernel still runs,
    and numba's warning names the kernel's file, where the project's cache locator once lacked the file and
    crashed the run."""
    real = compile_cache.kernel_folder
    monkeypatch.setattr(compile_cache, "kernel_folder", lambda active, py_func, py_file, root=compile_cache.SOURCE_ROOT:
                        tmp_path if py_func is _absolute else real(active, py_func, py_file, root))
    with pytest.warns(NumbaWarning, match="Cannot cache compiled function") as caught:
        assert njit(cache=True)(_absolute)(-3) == 3
    assert any(warning.filename == __file__ for warning in caught)
