"""MkDocs hook: writes the CLI reference from the typer application itself.

A page holding the line ``<!-- cli-reference -->`` gets, in its place, every command of
``hippograph`` with its help text, arguments, options and example, read from the command
tree that typer builds. The page can never fall behind the CLI.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

MARKER = "<!-- cli-reference -->"


def _command_tree() -> Any:
    import typer

    from hippograph.app.cli import app

    return typer.main.get_command(app)


def _option_row(param: Any) -> str:
    if getattr(param, "param_type_name", "") == "option":
        names = ", ".join(f"`{name}`" for name in [*param.opts, *param.secondary_opts])
        help_text = (param.help or "").replace("|", "\\|").replace("\n", " ")
        extra = []
        if param.required:
            extra.append("required")
        if param.envvar:
            extra.append(f"env `{param.envvar}`")
        if param.show_default and param.default not in (None, False, ()) and not param.is_flag:
            extra.append(f"default `{param.default}`")
        note = f" ({'; '.join(extra)})" if extra else ""
        return f"| {names} | {help_text}{note} |"
    help_text = (getattr(param, "help", None) or "").replace("|", "\\|")
    return f"| `{(param.name or '').upper()}` | {help_text} (argument) |"


def _help_and_example(text: str) -> tuple[str, str]:
    help_text, _, example = text.partition("Example:")
    return help_text.strip().replace("\b", "").strip(), example.replace("\b", "").strip("\n")


def _describe(command: Any, path: list[str], level: int) -> list[str]:
    lines = [f"{'#' * level} `{' '.join(path)}`", ""]
    help_text, example = _help_and_example(f"{command.help or ''}\n{command.epilog or ''}")
    if help_text:
        lines += [help_text, ""]
    params = [p for p in command.params if p.name not in {"help", "install_completion", "show_completion"}]
    if params:
        lines += ["| argument or option | meaning |", "|---|---|", *(_option_row(p) for p in params), ""]
    if example.strip():
        lines += ["```bash", *(line.strip() for line in example.splitlines() if line.strip()), "```", ""]
    if hasattr(command, "commands"):
        for name in sorted(command.commands):
            lines += _describe(command.commands[name], [*path, name], min(level + 1, 4))
    return lines


def cli_reference() -> str:
    """The whole command tree as Markdown."""
    root = _command_tree()
    lines: list[str] = []
    for name in sorted(root.commands):
        lines += _describe(root.commands[name], ["hippograph", name], 2)
    return "\n".join(lines)


def on_config(config: Any, **kwargs: Any) -> Any:
    """Import the checkout's own package, not another installed copy."""
    src = str(Path(config["config_file_path"]).parent / "src")
    if src not in sys.path:
        sys.path.insert(0, src)
    return config


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    if MARKER in markdown:
        return markdown.replace(MARKER, cli_reference())
    return markdown
