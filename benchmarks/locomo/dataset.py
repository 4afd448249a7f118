"""Load the LoCoMo JSON into turns and questions, with the evidence normalised.

Evidence rules (data README): split each string on ``[;, ]``, read ``D:11:26`` as ``D11:26``
and ``D30:05`` as ``D30:5``, drop ids that name no turn of the conversation. A question
left with no evidence scores 1 on every metric (see ``metrics``).

The data is not in the repository (LoCoMo is CC BY-NC 4.0): the harnesses take the file from
``--data`` or from ``HIPPOGRAPH_LOCOMO_DATA``. The dev split is the samples ``conv-26`` and
``conv-30`` of snap-research/LoCoMo's ``data/locomo10.json`` (788 turns, 304 questions).

Categories (the dataset's numbers): 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
5 adversarial.

A file that is not LoCoMo (not JSON, a sample, turn or question without its fields, a category
outside 1–5) is refused with a :class:`LocomoDataError` naming the file, the sample and the field.

Audited evidence: an independent audit of LoCoMo (dial481/locomo-audit, ``errors.json``) lists
questions whose cited evidence is wrong or incomplete; :func:`audited` swaps in its
``correct_evidence`` (normalised as above). Its entries are named ``locomo_<sample>_qa<n>``:
the sample's position in ``locomo10.json`` and the question's position in its ``qa`` list,
both from 0; every entry is checked against the question's text.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

DATA_ENV = "HIPPOGRAPH_LOCOMO_DATA"
T = TypeVar("T")

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_SPLIT = re.compile(r"[;, ]+")
_ID = re.compile(r"^D:?(\d+):(\d+)$")


class LocomoDataError(ValueError):
    """The LoCoMo file cannot be read, is not JSON, or does not have the dataset's schema."""


@dataclass(frozen=True)
class Turn:
    conv_id: str
    dia_id: str
    session: int
    index: int  # position inside the session, from 1
    date_time: str  # the session's own string, e.g. "1:56 pm on 8 May, 2023"
    speaker: str
    text: str
    caption: str | None

    @property
    def session_id(self) -> str:
        return f"{self.conv_id}/S{self.session}"

    @property
    def full_text(self) -> str:
        """The utterance plus, when the speaker shared an image, its caption."""
        if self.caption:
            return f"{self.text} [shared an image: {self.caption}]"
        return self.text

    @property
    def date(self) -> datetime:
        return parse_session_date(self.date_time)


@dataclass(frozen=True)
class Question:
    conv_id: str
    question: str
    answer: str
    category: int
    evidence: tuple[str, ...]
    index: int = 0
    """Position in the sample's ``qa`` list, from 0."""
    sample: int = 0
    """The sample's position in the file, from 0."""


@dataclass(frozen=True)
class Conversation:
    conv_id: str
    speakers: tuple[str, str]
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def parse_session_date(value: str) -> datetime:
    """Parse LoCoMo's ``"1:56 pm on 8 May, 2023"``."""
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y")


def normalise_evidence(raw: list[str], known: set[str] | frozenset[str]) -> tuple[str, ...]:
    """Apply the README's rules; keep first-seen order, drop duplicates and unknown ids."""
    out: list[str] = []
    for item in raw:
        for piece in _SPLIT.split(str(item)):
            match = _ID.match(piece.strip())
            if not match:
                continue
            dia_id = f"D{int(match.group(1))}:{int(match.group(2))}"
            if dia_id in known and dia_id not in out:
                out.append(dia_id)
    return tuple(out)


def data_path(given: str | Path | None = None) -> Path:
    """The LoCoMo file: ``given`` (a harness's ``--data``), else ``$HIPPOGRAPH_LOCOMO_DATA``.

    Exits with a message saying what to pass when neither names an existing file."""
    raw = given or os.environ.get(DATA_ENV)
    if not raw:
        raise SystemExit(
            f"LoCoMo data not given: pass --data PATH or set {DATA_ENV} to a LoCoMo JSON file "
            "(the dev split: samples conv-26 and conv-30 of snap-research/LoCoMo's data/locomo10.json)"
        )
    path = Path(raw).expanduser()
    if not path.is_file():
        source = "--data" if given else DATA_ENV
        raise SystemExit(f"LoCoMo data not found: {path} (from {source}) is not a file")
    return path


def load(path: str | Path) -> list[Conversation]:
    """Read every sample of the LoCoMo file.

    Raises:
        LocomoDataError: The file cannot be read, is not JSON, or a sample, turn or question
            lacks a field of the dataset's schema (the message names the file, sample and field).
    """
    path = Path(path)
    try:
        samples = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LocomoDataError(f"cannot read the LoCoMo file {path}: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LocomoDataError(f"the LoCoMo file {path} is not JSON: {exc}") from exc
    if not isinstance(samples, list) or not samples:
        raise LocomoDataError(f"the LoCoMo file {path} must hold a non-empty list of samples")
    out = []
    for position, sample in enumerate(samples):
        try:
            out.append(_conversation(sample, position))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            name = sample.get("sample_id", "?") if isinstance(sample, dict) else "?"
            raise LocomoDataError(f"the LoCoMo file {path}, sample {position} ({name}): {_why(exc)}") from exc
    return out


def _why(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"missing field {exc.args[0]!r}"
    if isinstance(exc, (TypeError, AttributeError)):
        return f"a field has the wrong type ({exc})"
    return str(exc)


def audit_path(data: Path) -> Path:
    """The audit file beside ``data``: ``locomo-dev.json`` -> ``locomo-dev-audit.json``."""
    return data.with_name(f"{data.stem}-audit.json")


def audited(convs: list[Conversation], audit: str | Path) -> list[Conversation]:
    """``convs`` with each audited question's evidence replaced by the audit's ``correct_evidence``.

    Exits with a message when an entry names a question whose text differs (a different file)."""
    entries = json.loads(Path(audit).read_text())
    by_id = {str(e["question_id"]): e for e in entries}
    out: list[Conversation] = []
    for conv in convs:
        known = frozenset(t.dia_id for t in conv.turns)
        questions = []
        for q in conv.questions:
            entry = by_id.get(f"locomo_{q.sample}_qa{q.index}")
            if entry is not None:
                if entry["question"].strip() != q.question.strip():
                    raise SystemExit(f"audit entry {entry['question_id']} is not {conv.conv_id}'s question {q.index}")
                q = replace(q, evidence=normalise_evidence(entry["correct_evidence"], known))
            questions.append(q)
        out.append(replace(conv, questions=tuple(questions)))
    return out


def regraded(items: list[tuple[Question, T]], convs: list[Conversation]) -> list[tuple[Question, T]]:
    """``items`` with each question swapped for its namesake in ``convs`` (e.g. :func:`audited`'s)."""
    by_key = {(q.conv_id, q.index): q for c in convs for q in c.questions}
    return [(by_key[(q.conv_id, q.index)], x) for q, x in items]


def _conversation(sample: dict[str, Any], position: int = 0) -> Conversation:
    conv = sample["conversation"]
    conv_id = sample["sample_id"]
    sessions = sorted(int(m.group(1)) for key in conv if (m := _SESSION_KEY.match(key)) and conv[key])
    turns: list[Turn] = []
    for n in sessions:
        date_time = conv[f"session_{n}_date_time"]
        try:
            parse_session_date(date_time)
        except ValueError:
            raise ValueError(f"session_{n}_date_time {date_time!r} is not like '1:56 pm on 8 May, 2023'") from None
        for i, raw in enumerate(conv[f"session_{n}"], start=1):
            turns.append(
                Turn(
                    conv_id=conv_id,
                    dia_id=raw["dia_id"],
                    session=n,
                    index=i,
                    date_time=date_time,
                    speaker=raw["speaker"],
                    text=raw["text"],
                    caption=raw.get("blip_caption") or None,
                )
            )
    known = frozenset(t.dia_id for t in turns)
    questions = tuple(
        Question(
            conv_id=conv_id,
            question=str(qa["question"]),
            answer=str(qa.get("answer", qa.get("adversarial_answer", ""))),
            category=_category(qa["category"], index),
            evidence=normalise_evidence(qa.get("evidence", []), known),
            index=index,
            sample=position,
        )
        for index, qa in enumerate(sample["qa"])
    )
    return Conversation(
        conv_id=conv_id,
        speakers=(conv["speaker_a"], conv["speaker_b"]),
        turns=tuple(turns),
        questions=questions,
    )


def _category(raw: object, index: int) -> int:
    if not isinstance(raw, int | str) or str(raw).strip() not in {str(c) for c in CATEGORIES}:
        raise ValueError(f"question {index}: category {raw!r} is not one of {sorted(CATEGORIES)}")
    return int(raw)


def session_of(dia_id: str) -> int:
    """``"D12:3"`` -> 12."""
    return int(dia_id[1:].split(":", 1)[0])
