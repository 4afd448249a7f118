"""An offline stand-in for Claude that reacts to the user's message, for the demo and tests.

It is deliberately simple and says so: a statement such as "my dog is called Rex" or "I live
in Lisbon" is acknowledged and stored with a ``MEMORY_EXTRACT`` block; a question is
answered from the memory lines the prompt (or, in JIT mode, the ``hydrate_context`` tool)
provides, best word overlap first; anything else gets a short scripted reply. With a
thinking budget in the request it also "thinks" a sentence, so the whole pipeline runs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from hippograph.agent.extractors import ModelExtractor
from hippograph.agent.prompts import HYDRATE_CONTEXT_TOOL_NAME
from hippograph.llm.scripted import ScriptedModel, ScriptedReply, ScriptedToolCall
from hippograph.llm.types import ModelRequest, TextBlock, ToolResultBlock

__all__ = ["DEMO_MODEL_NAME", "demo_extraction_reply", "demo_extractor", "demo_model", "demo_reply"]

DEMO_MODEL_NAME = "scripted-demo"
_END = r"(?P<value>[^.!?\n]{1,80}?)\s*(?:[.!?\n]|$)"
_FACTS: tuple[tuple[re.Pattern[str], str, str, str], ...] = (
    (re.compile(r"\bmy name is " + _END, re.I), "user's name", "The user's name is {value}.",
     "Nice to meet you, {value}."),
    (re.compile(r"\bcall me " + _END, re.I), "user's name", "The user's name is {value}.",
     "Nice to meet you, {value}."),
    (re.compile(r"\bmy (?P<subject>[\w' -]{1,40}?) (?P<verb>is called|is named|is|are|was) " + _END,
                re.I),
     "user's {subject}", "The user's {subject} {verb} {value}.",
     "Got it: your {subject} {verb} {value}."),
    (re.compile(r"\bi live in " + _END, re.I), "user's home", "The user lives in {value}.",
     "Got it: you live in {value}."),
    (re.compile(r"\bi work (?:at|for) " + _END, re.I), "user's work", "The user works at {value}.",
     "Got it: you work at {value}."),
    (re.compile(r"\bi (?P<verb>like|love|prefer|enjoy|hate|dislike) " + _END, re.I),
     "user {verb}s {value}", "The user {verb}s {value}.", "Got it: you {verb} {value}."),
)  # fmt: skip
_QUESTION_START = re.compile(
    r"^\s*(what|who|whom|whose|when|where|why|which|how|do|does|did|is|are|can|could|would)\b",
    re.I,
)
_WORD = re.compile(r"[a-z0-9']{3,}")
_STOP = frozenset(
    re.findall(
        r"\w+",
        "the and you your what who when where which how does did are was were can could would "
        "tell about know remember with this that have has for from",
    )
)
_MEMORY_LINE = re.compile(r"^\s*(?:- )?(?:\[id:[^\]]*\]\s*)?\[(semantic|episodic|procedural|working|prospective)\]\s*")


def demo_model(*, delay: float = 0.0) -> ScriptedModel:
    """A :class:`ScriptedModel` that answers with :func:`demo_reply`."""
    return ScriptedModel(demo_reply, model=DEMO_MODEL_NAME, chunk_size=8, delay=delay)


def demo_extractor() -> ModelExtractor:
    """An offline :class:`~hippograph.agent.extractors.ModelExtractor`: it keeps the user's
    statements that :func:`demo_model` would remember (see :func:`demo_extraction_reply`)."""
    return ModelExtractor(ScriptedModel(demo_extraction_reply, model=DEMO_MODEL_NAME))


def demo_extraction_reply(request: ModelRequest) -> ScriptedReply:
    """The offline extraction model's reply to an exchange rendered by
    :func:`~hippograph.agent.extractors.render_exchange` (pure)."""
    user = ""
    for line in _last_user_text(request).splitlines():
        if line.startswith("User: "):
            try:
                user = str(json.loads(line[len("User: ") :]))
            except ValueError:
                user = line[len("User: ") :]
    fact = None if _is_question(user) else _fact(user)
    ops = [] if fact is None else [{"op": "upsert_node", "label": fact.label, "content": fact.content, "importance": 6}]
    return ScriptedReply(text=f"<MEMORY_EXTRACT>{json.dumps({'ops': ops})}</MEMORY_EXTRACT>")


def demo_reply(request: ModelRequest) -> ScriptedReply:
    """The demo's reply to a request (pure: the same request, the same reply)."""
    last = request.messages[-1]
    results = [b for b in last.content if isinstance(b, ToolResultBlock)] if isinstance(last.content, list) else []
    user = _last_user_text(request)
    if results:
        memory = "\n".join(b.content for b in results if not b.is_error)
    else:
        if any(t.name == HYDRATE_CONTEXT_TOOL_NAME for t in request.tools):
            call = ScriptedToolCall(name=HYDRATE_CONTEXT_TOOL_NAME, input={"query": user[:300]})
            return ScriptedReply(tool_calls=[call])
        memory = request.system.context if request.system else ""
    reply = _answer(user, memory)
    if request.thinking_budget:
        reply = reply.model_copy(update={"thinking": _thinking(user, reply.text)})
    return reply


@dataclass(frozen=True)
class _Fact:
    label: str
    content: str
    ack: str


def _answer(user: str, memory: str) -> ScriptedReply:
    fact = None if _is_question(user) else _fact(user)
    if fact is not None:
        op = {"op": "upsert_node", "label": fact.label, "content": fact.content, "importance": 6}
        block = json.dumps({"ops": [op]})
        text = f"{fact.ack} I'll remember that."
        return ScriptedReply(text=f"{text}\n<MEMORY_EXTRACT>{block}</MEMORY_EXTRACT>")
    if _is_question(user):
        line = _best_line(user, memory)
        if line is None:
            return ScriptedReply(text="I don't remember anything about that yet. Tell me, and I'll keep it in mind.")
        return ScriptedReply(text=f"From what I remember: {line}")
    return ScriptedReply(
        text='I\'m the offline scripted model. Tell me a fact ("my dog is called Rex"), '
        "then ask me about it, even in a new session."
    )


def _fact(text: str) -> _Fact | None:
    for pattern, label, content, ack in _FACTS:
        match = pattern.search(text)
        if match is None:
            continue
        parts = {k: v.strip().rstrip(",;:") for k, v in match.groupdict().items() if v}
        return _Fact(label.format(**parts)[:200], content.format(**parts), ack.format(**parts))
    return None


def _is_question(text: str) -> bool:
    return text.rstrip().endswith("?") or _QUESTION_START.match(text) is not None


def _best_line(question: str, memory: str) -> str | None:
    wanted = _stems(question)
    best: tuple[int, str] | None = None
    for raw in memory.splitlines():
        if not _MEMORY_LINE.match(raw):
            continue
        line = _MEMORY_LINE.sub("", raw).strip()
        if line.startswith("turn:") or line.startswith("User: "):
            continue
        score = len(wanted & _stems(line))
        if score and (best is None or score > best[0]):
            best = (score, line)
    return best[1] if best else None


def _stems(text: str) -> set[str]:
    """Crude stems (the first four letters) of the words that carry meaning."""
    return {w[:4] for w in _WORD.findall(text.casefold()) if w not in _STOP}


def _last_user_text(request: ModelRequest) -> str:
    for message in reversed(request.messages):
        if message.role != "user":
            continue
        if isinstance(message.content, str):
            return message.content
        texts = [b.text for b in message.content if isinstance(b, TextBlock)]
        if texts:
            return "".join(texts)
    return ""


def _thinking(user: str, reply: str) -> str:
    kind = "a question" if _is_question(user) else "a statement"
    return f"The user sent {kind}. I answer briefly: {reply[:120]}"
