from __future__ import annotations

from hippograph.store.catalog import all_queries, catalog_files


def test_every_query_has_a_file_and_every_file_a_query() -> None:
    names = [q.value for q in all_queries()]
    assert len(names) == len(set(names)), "two enum members name the same file"
    assert set(names) == catalog_files()


def test_query_files_are_not_empty_and_use_parameters_not_formatting() -> None:
    for q in all_queries():
        text = q.text
        assert text, q
        assert "{}" not in text and "%s" not in text, q
