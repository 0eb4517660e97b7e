"""What an operator installs: the sdist, the wheel built from it, and a fresh venv of it.

setup.py is the one build definition (``make``, ``pip install .``, ``python -m build``):
the wheel must carry the rules kernel compiled with mypyc and its stamp, ``domino serve``
must run from a venv that has nothing but the wheel and its dependencies, and ``domino
bench engine`` there must name the compiled modules as loaded. Without a C compiler the
build falls back to a pure wheel with one German line, and that wheel runs pure.

Slow (marker ``wheel``): two wheel builds, each in its own isolated build environment,
and a venv filled from the package index; minutes, not seconds. ``make test`` runs it.
Speed ratios are not asserted here: docs/performance.md has the measured figure.
"""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from test_serve import health, until

from domino.rules import native
from domino.server.run import free_port

ROOT = Path(__file__).resolve().parents[2]
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
COMPILED = [*native.COMPILED, native.GROUP.rpartition(".")[2] + "__mypyc"]
LINE = "compiled with mypyc, loaded: " + ", ".join(native.COMPILED)

pytestmark = [
    pytest.mark.wheel,
    pytest.mark.skipif(sys.platform == "win32", reason="the venv layout below is POSIX"),
]


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what would point a child at the source tree."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", native.ENV)
    }
    return {**env, **extra}


def run(cmd: list[str], cwd: Path, **extra: str) -> str:
    done = subprocess.run(
        cmd,
        cwd=cwd,
        env=clean_env(**extra),
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, f"{cmd}:\n{out[-4000:]}"
    return out


def build(source: Path, out: Path, kind: str, **extra: str) -> tuple[Path, str]:
    """``python -m build --KIND`` of ``source`` into ``out``: the file and the output."""
    log = run(
        [sys.executable, "-m", "build", f"--{kind}", "--outdir", str(out), str(source)],
        cwd=source,
        **extra,
    )
    (made,) = out.iterdir()
    return made, log


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made, _ = build(ROOT, tmp_path_factory.mktemp("sdist"), "sdist")
    return made


def unpacked(sdist: Path, where: Path) -> Path:
    with tarfile.open(sdist) as tar:
        tar.extractall(where, filter="data")
    (top,) = where.iterdir()
    return top


def rules_files(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as z:
        return {
            n.removeprefix("domino/rules/") for n in z.namelist() if n.startswith("domino/rules/")
        }


def test_the_sdist_has_the_build_definition_and_no_build_output(sdist: Path) -> None:
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in (
        "setup.py",
        "pyproject.toml",
        "src/domino/rules/native.py",
        "src/domino/locale/de/LC_MESSAGES/domino.po",
        *(f"src/domino/rules/{m}.py" for m in native.COMPILED),
    ):
        assert needed in names, needed
    built = [n for n in names if n.endswith((".so", ".pyd", ".c", ".stamp"))]
    assert built == [], built


@pytest.fixture(scope="module")
def wheel(sdist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = unpacked(sdist, tmp_path_factory.mktemp("src"))
    made, log = build(source, tmp_path_factory.mktemp("wheel"), "wheel")
    assert native.message("native_fallback", why="").split("(")[0] not in log, log[-3000:]
    return made


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel and its dependencies (from the index), nothing else."""
    home = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", str(home / "v")], cwd=home)
    run([str(home / "v" / "bin" / "pip"), "install", "-q", str(wheel)], cwd=home)
    return home / "v"


def test_the_wheel_carries_the_compiled_kernel_and_its_stamp(wheel: Path) -> None:
    files = rules_files(wheel)
    assert {f"{m}{SUFFIX}" for m in COMPILED} <= files, sorted(files)
    assert "native.stamp" in files
    with zipfile.ZipFile(wheel) as z:
        stamp = z.read("domino/rules/native.stamp").decode()
    assert stamp == native.stamp_text()  # the sources of this tree, as compiled


def test_the_wheel_has_no_benchmarks(wheel: Path) -> None:
    # The benchmarks, load tests and their infrastructure stay in the checkout's bench/;
    # only the engine bench (domino/cli/bench.py, the door) ships.
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    benches = [
        n
        for n in names
        if n.startswith("domino_bench")
        or "/loadtest/" in n
        or ("bench" in n.rpartition("/")[2] and n != "domino/cli/bench.py")
    ]
    assert benches == [], benches
    assert "domino/cli/bench.py" in names


def test_the_installed_wheel_names_where_the_benchmarks_are(venv: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(venv / "bin" / "domino"), "bench", "server", "--steps", "200"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stderr.strip()
    assert said.startswith("domino: `domino bench server` gehört nicht zum installierten Paket")
    assert "bench/" in said, said


def test_the_installed_wheel_serves_and_benches_compiled(venv: Path, tmp_path: Path) -> None:
    bench = run(
        [
            str(venv / "bin" / "domino"),
            "bench",
            "engine",
            "--seconds",
            "0.05",
            "--repeats",
            "1",
            "--skip-modes",
        ],
        cwd=tmp_path,
    )
    assert LINE in bench, bench
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    assert f"({site}/domino/rules/native__mypyc{SUFFIX})" in bench, bench
    assert native.message("native_stale") not in bench

    port = free_port()
    proc = subprocess.Popen(
        [
            str(venv / "bin" / "domino"),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--data",
            str(tmp_path / "data"),
        ],
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        up = until(lambda: health(port), proc)
        assert up.status_code == 200, up.text
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_without_a_compiler_the_wheel_is_pure_with_one_line(sdist: Path, tmp_path: Path) -> None:
    source = unpacked(sdist, tmp_path / "src")
    made, log = build(source, tmp_path / "wheel", "wheel", CC="/bin/false")
    said = [line for line in log.splitlines() if line.startswith("domino: ")]
    assert said == [
        native.message("native_fallback", why="CompileError: /bin/false failed, exit status 1")
    ], said
    files = rules_files(made)
    assert not [f for f in files if f.endswith(SUFFIX)] and "native.stamp" not in files
    # Installed (the rules need no dependency), it runs as pure Python.
    run([sys.executable, "-m", "venv", str(tmp_path / "v")], cwd=tmp_path)
    run(
        [str(tmp_path / "v" / "bin" / "pip"), "install", "-q", "--no-deps", str(made)], cwd=tmp_path
    )
    play = "from domino.rules import native, playout; print(native.loaded_compiled())"
    out = run([str(tmp_path / "v" / "bin" / "python"), "-c", play], cwd=tmp_path)
    assert out == "[]\n", out


def test_make_builds_in_place_through_setup_py(tmp_path: Path) -> None:
    # tools/build_native.py (make's step) in a copy of the tree: it compiles and stamps
    # beside the sources through setup.py, leaves a current build alone, and after an edit
    # the guard warns (German) and ignores the stale build until it is built again;
    # without a compiler, one line and nothing left beside the sources.
    tree = tmp_path / "tree"
    for part in ("setup.py", "pyproject.toml", "README.md", "LICENSE", "tools/build_native.py"):
        (tree / part).parent.mkdir(parents=True, exist_ok=True)
        (tree / part).write_bytes((ROOT / part).read_bytes())
    ignore = shutil.ignore_patterns("*.so", "*.pyd", "native.stamp", "__pycache__")
    shutil.copytree(ROOT / "src", tree / "src", ignore=ignore)
    rules = tree / "src" / "domino" / "rules"
    make = [sys.executable, str(tree / "tools" / "build_native.py")]
    probe = [
        sys.executable,
        "-c",
        "from domino.rules import native, playout; print(native.loaded_compiled())",
    ]
    src = {"PYTHONPATH": str(tree / "src")}

    assert run(make, cwd=tree) == ""
    assert {f"{m}{SUFFIX}" for m in COMPILED} <= {p.name for p in rules.iterdir()}
    assert run(probe, cwd=tmp_path, **src) == f"{list(native.COMPILED)}\n"
    stamp = (rules / "native.stamp").stat().st_mtime_ns
    assert run(make, cwd=tree) == "" and (rules / "native.stamp").stat().st_mtime_ns == stamp

    with (rules / "moves.py").open("a") as f:
        f.write("# edited\n")
    assert run(probe, cwd=tmp_path, **src) == f"[]\n{native.message('native_stale')}\n"
    assert run(make, cwd=tree) == ""
    assert run(probe, cwd=tmp_path, **src) == f"{list(native.COMPILED)}\n"

    with (rules / "moves.py").open("a") as f:
        f.write("# edited again\n")
    shutil.rmtree(tree / "build")  # a fresh tree (the C is unchanged: the objects would do)
    said = run(make, cwd=tree, CC="/bin/false")
    why = "CompileError: /bin/false failed, exit status 1"
    assert said == f"{native.message('native_fallback', why=why)} [build/native/build.log]\n"
    assert not [p for p in rules.iterdir() if p.suffix == ".so" or p.name == "native.stamp"]
    assert run(probe, cwd=tmp_path, **src) == "[]\n"
