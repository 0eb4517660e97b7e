"""``domino replay`` on broken records: always exit 1 with one clear line, never a traceback.

Valid records (the examples and an exported match) are mutated: keys dropped or
replaced, values of the wrong type, deep nesting, unicode digits, huge numbers,
cut text. The CLI's ``main`` runs in-process with the record on standard input.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domino.cli import main
from domino.cli.replay import MAX_MESSAGE
from domino.rules import MatchState, Rules
from domino.rules.record import dumps, record_of

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
PREFIX = "domino replay: "


def _exported() -> dict[str, Any]:
    m = MatchState(Rules.preset("fuenferfieber", 3), seed=5)
    for _ in range(2):
        while not m.round.over:
            m.apply(m.round.legal_moves()[0])
        if m.over:
            break
        m.start_round()
    rec: dict[str, Any] = json.loads(dumps(record_of(m)))
    return rec


RECORDS: list[dict[str, Any]] = [
    json.loads(f.read_text(encoding="utf-8")) for f in sorted(EXAMPLES.glob("*.json"))
] + [_exported()]

UNICODE_DIGITS = "²³¹٠٦٢۶߆६০੬૬୬௬౬೬൬๖໖༦၆႖០᠖᥌᧖᪆᭖᮶᱆᱖꘦꣖꤆ꧦ꩖꯶６𐒦𑁬𝟞𝟨𝟲𝟼🯶"
WORDS = ["6|2 L", "6|2", "D", "P", "klassisch", "human", "bot", "abandoned", "domino-record"]


def _nested(depth: int, as_list: bool) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = [v] if as_list else {"a": v}
    return v


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([10**30, -(10**30), 10**400, 2**63, -1, 0, 7, 28, 99]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.text(alphabet=UNICODE_DIGITS + "0123456|LRDP +-_", max_size=8),
    st.builds(
        lambda a, b, e: f"{a}|{b} {e}",
        st.sampled_from(UNICODE_DIGITS + "0123456789"),
        st.sampled_from(UNICODE_DIGITS + "0123456"),
        st.sampled_from("LRlrX"),
    ),
    st.sampled_from(WORDS),
)
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=4),
    st.dictionaries(st.sampled_from(["a", "name", "hands", "moves", "seats"]), scalars, max_size=3),
    st.builds(_nested, st.sampled_from([40, 900, 990]), st.booleans()),
)


def _paths(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*path, i))
    return out


@st.composite
def broken_records(draw: st.DrawFn) -> str:
    rec = copy.deepcopy(draw(st.sampled_from(RECORDS)))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(rec)[1:]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent: Any = rec
        for k in path[:-1]:
            parent = parent[k]
        if isinstance(parent, dict) and draw(st.booleans()):
            del parent[path[-1]]
        elif isinstance(parent, dict) and draw(st.booleans()):
            parent[draw(st.sampled_from(["x", "Format", "out", "deal", "note"]))] = draw(values)
        else:
            parent[path[-1]] = draw(values)
    return json.dumps(rec, ensure_ascii=draw(st.booleans()))


def _replay_stdin(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    code = main(["replay", "-"])
    return code, out.getvalue(), err.getvalue()


def _assert_clear_refusal(code: int, out: str, err: str) -> None:
    assert code == 1, (code, out[:200])
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err[:500]
    assert err.startswith(PREFIX + "-: ") and "Traceback" not in err
    assert len(err) <= len(PREFIX + "-: ") + MAX_MESSAGE + 1


@SETTINGS
@given(text=broken_records())
def test_a_mutated_record_replays_or_is_refused_in_one_line(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = _replay_stdin(text, monkeypatch)
    if code == 0:  # some mutations leave a valid record (a note, a dropped optional key)
        assert err == "" and json.loads(out)
    else:
        _assert_clear_refusal(code, out, err)


@SETTINGS
@given(rec=st.sampled_from(RECORDS), data=st.data())
def test_a_cut_or_spliced_record_text_is_refused_in_one_line(
    rec: dict[str, Any], data: st.DataObject, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = json.dumps(rec)
    cut = data.draw(st.integers(0, len(text) - 1))
    junk = data.draw(st.text(max_size=6) | st.sampled_from(["9" * 5000, "1e999999", "NaN", "]]"]))
    code, out, err = _replay_stdin(text[:cut] + junk, monkeypatch)
    if code == 0:
        assert json.loads(out)
    else:
        _assert_clear_refusal(code, out, err)


@pytest.mark.parametrize("depth", [33, 500, 900, 950, 990, 995, 1000, 5000, 100_000])
@pytest.mark.parametrize("as_list", [True, False])
@pytest.mark.parametrize("where", ["top", "format", "hand", "moves"])
def test_deep_nesting_anywhere_is_refused_as_too_deep(
    depth: int, as_list: bool, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without the depth check in loads, a value nested just below the stack limit
    # parsed, and quoting it in the error (repr) raised RecursionError.
    if where == "top":
        text = _deep(depth, as_list)
    else:
        text = _deep_text(copy.deepcopy(RECORDS[0]), where, depth, as_list)
    code, out, err = _replay_stdin(text, monkeypatch)
    _assert_clear_refusal(code, out, err)
    assert "nested too deeply" in err


def _deep_text(rec: dict[str, Any], where: str, depth: int, as_list: bool) -> str:
    # json.dumps itself cannot write values this deep: splice the text in.
    marker = "__DEEP__"
    if where == "format":
        rec["format"] = marker
    elif where == "hand":
        rec["rounds"][0]["deal"]["hands"][0] = marker
    else:
        rec["rounds"][0]["moves"] = marker
    return json.dumps(rec).replace(json.dumps(marker), _deep(depth, as_list))


def _deep(depth: int, as_list: bool) -> str:
    return ("[" * depth + "]" * depth) if as_list else ('{"a":' * depth + "1" + "}" * depth)


def test_a_huge_value_in_a_record_is_quoted_cut_to_one_short_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rec = copy.deepcopy(RECORDS[0])
    rec["format"] = "x" * 100_000 + "\n" * 10
    code, out, err = _replay_stdin(json.dumps(rec), monkeypatch)
    _assert_clear_refusal(code, out, err)
    assert '"format" must be' in err and " … " in err


@pytest.mark.parametrize("move", ["²|4 L", "٦|٢ L", "６|2 R", "+1|2 L", "1_0|2 L", "6|2\u00a0L"])
def test_a_move_with_a_non_ascii_digit_or_space_is_refused_naming_the_move(
    move: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = copy.deepcopy(RECORDS[-1])
    rec["rounds"][0]["moves"][0] = move
    code, out, err = _replay_stdin(json.dumps(rec), monkeypatch)
    _assert_clear_refusal(code, out, err)
    assert "Round 1, move 1" in err
