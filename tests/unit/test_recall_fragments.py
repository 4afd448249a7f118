"""Recall's one source: the fragments under ``cypher/retrieval/recall/`` chain (each reads only
what an earlier one returned), render into one statement per server with the hop block
unrolled, and into one statement per fragment for the degrade path, whose stand-ins are
well-formed; a malformed fragment is refused with its name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hippograph.retrieval.config import ActivationConfig
from hippograph.retrieval.statement import FOLDER, ORDER, recall_stages, recall_statement
from hippograph.store.catalog import cypher_root
from hippograph.store.fragments import STAGE_PREFIX, Output, fragments, load, render_statement


def test_every_fragment_file_is_in_the_order_and_every_name_has_a_file() -> None:
    folder = Path(str(cypher_root())) / FOLDER
    stems = {p.name.split(".")[0] for p in folder.glob("*.cypher")}
    assert stems == set(ORDER)
    variants = {p.name for p in folder.glob("*.lts.cypher")}
    assert variants == {"vector.lts.cypher", "key_vector.lts.cypher"}


@pytest.mark.parametrize("lts", [False, True], ids=["2026", "5.26"])
def test_the_statement_is_its_fragments_in_order_with_the_hops_unrolled(lts: bool) -> None:
    text = recall_statement(lts=lts).text
    assert text.startswith("CYPHER 25\n") != lts
    assert "//" not in text and "@h" not in text and "@p" not in text
    hops = ActivationConfig.model_fields["max_hops"].metadata
    most = next(m.le for m in hops if hasattr(m, "le"))
    assert [f.name for f in fragments(FOLDER, ORDER, lts=lts) if f.name.startswith("hop")] == [
        f"hop@{h}" for h in range(1, most + 1)
    ]
    for h in range(1, most + 1):
        assert f"AS arrived{h}," in text and f"CALL (visible, frontier{h - 1}," in text
    assert text.rstrip().splitlines()[-1].startswith("RETURN visible, population, vector_hits")
    # the statement's columns are the row the engine reads
    assert text.count("USING INDEX SEEK") >= 8


@pytest.mark.parametrize("lts", [False, True], ids=["2026", "5.26"])
def test_each_stage_binds_its_inputs_and_returns_its_outputs(lts: bool) -> None:
    stages = recall_stages(lts=lts)
    assert [s.fragment.name for s in stages][-1] == "ranking"
    env: dict[str, object] = {}
    for stage in stages:
        text = stage.query.text
        for name in stage.fragment.inputs:
            assert f"${STAGE_PREFIX}{name} AS {name}" in text
        assert text.rstrip().endswith("RETURN " + ", ".join(o.name for o in stage.fragment.outputs))
        assert stage.params(env | {n: [] for n in stage.fragment.inputs}) == {
            f"{STAGE_PREFIX}{n}": [] for n in stage.fragment.inputs
        }
        env.update({o.name: [] for o in stage.fragment.outputs})
        assert stage.query.path == f"{FOLDER}/{stage.fragment.name}@{'lts' if lts else '2026'}"


def test_a_failing_part_has_stand_ins_and_the_rest_fail_loudly() -> None:
    for stage in recall_stages(lts=False):
        f = stage.fragment
        if f.part is None:
            assert all(o.fallback is None for o in f.outputs), f.name
        else:
            assert all(o.fallback is not None for o in f.outputs), f.name
    assert {s.fragment.part for s in recall_stages(lts=False)} == {
        None, "population", "vector", "feedback", "keys", "fulltext", "people", "activation"
    }  # fmt: skip


def test_stand_ins_are_literals_inputs_or_parameters() -> None:
    env = {"approx": [{"id": "a"}]}
    params = {"exact_below": 5000}
    assert Output("x", "[]").stand_in(env, params) == []
    assert Output("x", "false").stand_in(env, params) is False
    assert Output("x", "approx").stand_in(env, params) == [{"id": "a"}]
    assert Output("x", "$exact_below").stand_in(env, params) == 5000
    with pytest.raises(LookupError, match="no stand-in"):
        Output("x").stand_in(env, params)


def test_a_fragment_reading_what_none_returned_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "a.cypher").write_text("// in:\n// out: one\nCALL () { RETURN 1 AS one }\n")
    (tmp_path / "x" / "b.cypher").write_text("// in: two\n// out: three\nCALL (two) { RETURN two AS three }\n")
    (tmp_path / "x" / "c.cypher").write_text("// out: one\nCALL () { RETURN 1 AS one }\n")
    (tmp_path / "x" / "d.cypher").write_text("// in:\n// out: one\nCALL () { RETURN 1 AS one }\n")
    monkeypatch.setattr("hippograph.store.fragments.cypher_root", lambda: tmp_path)
    load.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"fragment b reads \['two'\]"):
            fragments("x", ("a", "b"), lts=False)
        with pytest.raises(ValueError, match="fragment x/c has no"):
            fragments("x", ("c",), lts=False)
        with pytest.raises(ValueError, match=r"fragment d returns \['one'\] again"):
            fragments("x", ("a", "d"), lts=False)
        assert render_statement("x", ("a",), lts=True).text == "CALL () { RETURN 1 AS one }"
    finally:
        load.cache_clear()
        render_statement.cache_clear()


def test_no_fragment_sorts_rows_after_the_channels() -> None:
    """After the channels nothing sorts rows (a buffered row is charged all state in scope):
    orderings are aggregations, reduce() arg-max / top-n insertions and percentile cut-offs."""
    after = ORDER[ORDER.index("key_fusion") + 1 :]
    for name in after:
        for f in load(FOLDER, name, False):
            assert not re.search(r"\bORDER BY\b", f.body), f.name
