"""The LLM judge of LoCoMo answers, after the protocol of the mem0 paper.

Chhikara et al., "Mem0: Building Production-Ready AI Agents with Scalable Long-Term Memory"
(arXiv 2504.19413, 2025), score an answer with an LLM judge that sees the question, the gold
answer and the generated answer and labels it CORRECT or WRONG: generous about length and
wording as long as the answer is about the same thing, generous about the form of a date as
long as it is the same date or period, one sentence of reasoning, then the label as JSON under
the key ``label``. The prompt below follows that shape and those rules in its own words. The
paper reports categories 1–4 only: the adversarial questions (category 5, whose gold answer is
that the conversation does not say) are left out of the score, and here they are not asked at
all (:data:`EXCLUDED`).

Category names: this harness uses the dataset's own (1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop). mem0's tables name them otherwise (by its maintainers' account, 1 single-hop,
2 temporal, 3 multi-hop, 4 open-domain), so compare per-category figures by number.

Differences, stated so that a figure is read right: the paper's judge was gpt-4o-mini at
temperature 0 in JSON mode; here it is Claude at the API's default sampling, and a reply
without one clear label is asked again, then recorded as unjudged (never as correct).
"""

from __future__ import annotations

import json
from string import Template
from typing import Literal

Label = Literal["CORRECT", "WRONG"]
EXCLUDED = frozenset({5})
"""Categories left out of the score, as in the paper: 5, adversarial."""

JUDGE_PROMPT = """\
Label an answer to a question as CORRECT or WRONG. You are given:
    (1) a question that one person in a conversation asks about what the other person said,
    (2) a gold (ground truth) answer,
    (3) a generated answer.

The question asks about something one speaker should know about the other from their earlier
conversations. The gold answer is usually short and names the topic, for example:
Question: What did I bring back from my last trip to Crete?
Gold answer: a clay pot
A generated answer may be much longer: be generous. If it is about the same thing as the gold
answer, label it CORRECT.

For questions about time, the gold answer is a date, a month, a year or a period. A generated
answer may be longer or use another form ("7 May" for "May 7th") or a relative reference
("the week before") that points at the same date or period: be generous, and label it CORRECT
when it is the same date or period.

The question to grade:
Question: $question
Gold answer: $gold
Generated answer: $generated

First explain your reasoning in one short sentence, then give the label as JSON with the key
"label", for example {"label": "CORRECT"}. Give one label only: never both CORRECT and WRONG.
"""


def judge_prompt(question: str, gold: str, generated: str) -> str:
    """The judge's user message for one answer (each value on its own line)."""
    values = {"question": question, "gold": gold, "generated": generated}
    return Template(JUDGE_PROMPT).substitute({k: " ".join(v.split()) for k, v in values.items()})


def parse_label(reply: str) -> Label | None:
    """The label of a judge's reply: the ``label`` of the JSON objects in it, when they all say
    the same CORRECT or WRONG (any case); None when there is none, it is something else, or two
    objects disagree."""
    decoder = json.JSONDecoder()
    labels: set[str] = set()
    start = reply.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(reply, start)
        except json.JSONDecodeError:
            start = reply.find("{", start + 1)
            continue
        if isinstance(value, dict) and "label" in value:
            labels.add(str(value["label"]).strip().upper())
        start = reply.find("{", end)
    if len(labels) != 1:
        return None
    (label,) = labels
    if label == "CORRECT":
        return "CORRECT"
    if label == "WRONG":
        return "WRONG"
    return None
