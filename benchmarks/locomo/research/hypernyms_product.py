"""Issue 14, session 5: the WordNet concept evidence (``hypernyms.py``) on the product's own ranking.

``capture.py`` keeps every memory the product scored for each question (its top
``rank_depth(50)``, with the score parts); here the concept evidence of each of those memories is
z-scored over them (positive side), expressed in the same units as their relevance (one standard
deviation of concept evidence = one standard deviation of the captured relevances), added × w,
and the memories re-ranked exactly as ``scoring.final_score`` ranks them under the default
weights (recency only when the query asks about the recent). So it can re-order the product's
candidates, not bring in new ones. Variants: to every memory, or only to the memories of the one
person the query names, or that and only for list questions (``concepts.LIST_Q``, grammar); on
the default capture and on the person-centred (``--topic``) one.
With w = 0 it reproduces the product's figures.

    D=../shared/data/locomo/locomo-dev.json
    PYTHONPATH=src:. python -m benchmarks.locomo.research.capture --data $D --out /tmp/wnh/parts.pkl
    PYTHONPATH=src:. python -m benchmarks.locomo.research.capture --data $D --out /tmp/wnh/parts_topic.pkl --topic
    PYTHONPATH=src:. python -m benchmarks.locomo.research.hypernyms_product \
        --parts /tmp/wnh/parts.pkl --topic-parts /tmp/wnh/parts_topic.pkl
"""

from __future__ import annotations

import argparse
import pickle
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from benchmarks.locomo.dataset import load
from benchmarks.locomo.metrics import evaluate
from benchmarks.locomo.research import hypernyms as H
from benchmarks.locomo.research.concepts import LIST_Q, concept_evidence_cached
from benchmarks.locomo.research.prototype import named_speakers
from benchmarks.locomo.research.recency import DEPTH, s_when_asked

Ranked = dict[str, dict[str, list[Any]]]  # method -> conversation -> [(question, turn ids)]


Evidence = Callable[[Any, str], np.ndarray]  # (scope, question) -> per turn of the scope


def rerank(
    data: dict[str, Any], evidence: Evidence | None, w: float, person_only: bool, list_only: bool = False
) -> dict[str, list[Any]]:
    convs = {c.conv_id: c for c in load()}
    score = s_when_asked()
    out: dict[str, list[Any]] = {}
    for conv_id, d in data.items():
        conv = convs[conv_id]
        sc = SimpleNamespace(conv=conv, turns=list(conv.turns))
        index = {t.dia_id: i for i, t in enumerate(sc.turns)}
        ctx = {"now": d["now"], "times": d["times"], "newest": d["times"][-1], "span": d["times"][-1] - d["times"][0]}
        rows = []
        for q, items in d["questions"]:
            items = [dict(it) for it in items]
            applies = not list_only or bool(LIST_Q.search(q.question))
            if evidence is not None and w > 0 and items and applies:
                c_all = evidence(sc, q.question)
                c = np.array([c_all[index[it["turn"]]] if it["turn"] in index else 0.0 for it in items])
                named = named_speakers(sc, q.question)  # type: ignore[arg-type]
                if person_only:
                    mine = np.array(
                        [len(named) == 1 and sc.turns[index[it["turn"]]].speaker == named[0] for it in items]
                    )
                    c = c * mine
                if c.max() > 0:
                    rel = np.array([it["relevance"] for it in items])
                    new = rel + w * H.zpos(c) * rel.std()
                    new = new / new.max()
                    for it, v in zip(items, new, strict=True):
                        it["relevance"] = float(v)
            ranked = sorted(items, key=lambda it: -score(it, q.question, ctx))
            rows.append((q, [it["turn"] for it in ranked][:DEPTH]))
        out[conv_id] = rows
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", type=Path, default=Path("/tmp/wnh/parts.pkl"))
    ap.add_argument("--topic-parts", type=Path, default=None)
    ap.add_argument("--wordnet", default=H.WORDNET_DIR)
    ap.add_argument("--minilm", action="store_true", help="also session 3's MiniLM word concepts")
    a = ap.parse_args()
    H.WORDNET_DIR = a.wordnet
    captures = {"product": pickle.loads(a.parts.read_bytes())}
    if a.topic_parts:
        captures["product + topic"] = pickle.loads(a.topic_parts.read_bytes())
    per: Ranked = {}
    families: dict[str, tuple[str, list[str]]] = {}
    for cname, data in captures.items():
        per[cname] = rerank(data, None, 0.0, False)
        for person_only, list_only in ((False, False), (True, False), (True, True)):
            fam = f"{cname} + wn{' person-only' if person_only else ''}{' list-questions' if list_only else ''}"
            names = []
            for lname, lex in H.LEXICONS.items():
                for w in (0.25, 0.5, 1.0) if not list_only else (0.5, 1.0, 2.0):
                    name = f"{fam} {lname} w={w}"
                    per[name] = rerank(data, partial(H.concept_evidence, lex=lex), w, person_only, list_only)
                    names.append(name)
            families[fam] = (cname, names)
        if a.minilm:  # session 3's MiniLM word concepts (concepts.py) on the same footing, for comparison
            for person_only in (False, True):
                fam = f"{cname} + MiniLM words{' person-only' if person_only else ''}"
                names = []
                for z in (3.0, 4.0):
                    for w in (0.25, 0.5, 1.0):
                        name = f"{fam} z>={z} w={w}"
                        per[name] = rerank(data, partial(concept_evidence_cached, z_min=z), w, person_only)
                        names.append(name)
                families[fam] = (cname, names)
    print_table(per)
    print_loco(per, families)


def figures(rows: list[Any]) -> dict[str, dict[str, float]]:
    return evaluate(rows)


def print_table(per: Ranked) -> None:
    print(
        "| method | overall R@5 / R@10 / S@5 | multi-hop R@5 / R@10 / S@5 | open-domain R@5 / R@10 / S@5 |"
        " adversarial R@10 | conv-26 R@5 / R@10 / mh R@10 | conv-30 R@5 / R@10 / mh R@10 |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, by in per.items():
        r = figures([x for v in by.values() for x in v])
        cells = [
            f"{r[g]['R@5']:.1f} / {r[g]['R@10']:.1f} / {r[g]['S@5']:.1f}"
            for g in ("overall", "multi-hop", "open-domain")
        ]
        cells.append(f"{r['adversarial']['R@10']:.1f}")
        for conv in ("conv-26", "conv-30"):
            rc = figures(by[conv])
            cells.append(f"{rc['overall']['R@5']:.1f} / {rc['overall']['R@10']:.1f} / {rc['multi-hop']['R@10']:.1f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def print_loco(per: Ranked, families: dict[str, tuple[str, list[str]]]) -> None:
    """Inside each family (its baseline, w = 0, included): lexicon and weight chosen on one
    conversation by overall R@5 + R@10 + multi-hop R@10, measured on the other."""
    print(
        "\n| family | tuned on | chosen | held-out | overall R@5 / R@10 / S@5 | mh R@5 / R@10 / S@5 |"
        " baseline on held-out: overall R@5 / R@10 / S@5, mh R@10 |"
    )
    print("|---|---|---|---|---|---|---|")
    for fam, (baseline, names) in families.items():
        for tune, held in (("conv-26", "conv-30"), ("conv-30", "conv-26")):

            def obj(n: str, tune: str = tune) -> float:
                r = figures(per[n][tune])
                return r["overall"]["R@5"] + r["overall"]["R@10"] + r["multi-hop"]["R@10"]

            best = max([baseline, *names], key=obj)
            r, b = figures(per[best][held]), figures(per[baseline][held])
            o, mh, bo = r["overall"], r["multi-hop"], b["overall"]
            print(
                f"| {fam} | {tune} | {best} | {held} | {o['R@5']:.1f} / {o['R@10']:.1f} / {o['S@5']:.1f} | "
                f"{mh['R@5']:.1f} / {mh['R@10']:.1f} / {mh['S@5']:.1f} | "
                f"{bo['R@5']:.1f} / {bo['R@10']:.1f} / {bo['S@5']:.1f}, {b['multi-hop']['R@10']:.1f} |"
            )


if __name__ == "__main__":
    main()
