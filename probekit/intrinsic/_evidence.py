"""How much data stands behind each word set of the probe suite, and warnings where it is thin."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

logger = logging.getLogger("probekit.intrinsic._probe_suite")  # the suite's messages keep their logger

__all__ = ["SETS", "MIN_WORDS", "MAX_WORD_SHARE", "evidence_report"]

SETS = ("female_attributes", "male_attributes", "female_stereotypes", "male_stereotypes")
#: A set with fewer words than this is flagged in the summary.
MIN_WORDS = 10
#: A word holding more than this share of its set's contexts is flagged in the summary.
MAX_WORD_SHARE = 0.25


def evidence_report(sets: dict[str, Any], embeddings: dict[str, Any], selections: dict[str, Any]) -> tuple[dict, list[str]]:
    """How much data stands behind each word set, and warnings where it is thin.

    Parameters
    ----------
    sets : dict
        :func:`probekit.embedding.paper_word_sets` output.
    embeddings : dict
        Set name -> WordEmbeddings of that set's occurrences.
    selections : dict
        Set name -> the SentenceSelection its words were selected with.

    Returns
    -------
    (evidence, warnings)
        ``evidence[set]``: ``listed`` (words in the published list), ``words`` (words with at
        least one context), ``contexts`` (occurrences embedded), ``contexts_per_word``,
        ``largest_word`` and ``largest_word_share``, ``dropped`` with ``multi_piece`` (more than
        one wordpiece), ``no_sentence`` (no usable corpus sentence) and ``excluded`` (attribute
        words that are also stereotypes), and ``sentences_excluded`` (sentences of the set's words
        skipped because they hold an attribute word; stereotype sets only). A warning for each
        set of fewer than :data:`MIN_WORDS` words and each word holding more than
        :data:`MAX_WORD_SHARE` of its set's contexts.
    """
    evidence: dict[str, Any] = {}
    notes: list[str] = []
    for name in SETS:
        emb, selection = embeddings[name], selections[name]
        kept = sets[name]
        counts = {w: int(np.count_nonzero(emb.words == w)) for w in kept}
        used = {w: c for w, c in counts.items() if c > 0}
        total = int(sum(used.values()))
        largest = max(used, key=used.get) if used else None
        share = used[largest] / total if largest is not None and total else None
        entry = {
            "listed": len(sets["listed"][name]),
            "words": len(used),
            "contexts": total,
            "contexts_per_word": used,
            "largest_word": largest,
            "largest_word_share": share,
            "dropped": {
                "multi_piece": list(sets["dropped"].get(name, [])),
                "no_sentence": [w for w in kept if counts[w] == 0],
                "excluded": list(sets["excluded"].get(name, [])),
            },
        }
        if "stereotypes" in name:
            entry["sentences_excluded"] = int(sum(selection.excluded.get(w, 0) for w in kept))
        evidence[name] = entry
        label = name.replace("_", " ")
        if len(used) < MIN_WORDS:
            notes.append(f"{label}: only {len(used)} word(s) with contexts (fewer than {MIN_WORDS}); "
                         "its numbers rest on very few words")
        for word, count in sorted(used.items(), key=lambda kv: -kv[1]):
            if count / total > MAX_WORD_SHARE:
                notes.append(f"{label}: '{word}' holds {count} of the set's {total} contexts "
                             f"({count / total:.0%}, more than {MAX_WORD_SHARE:.0%}); the set's numbers are mostly about this word")
    for note in notes:
        logger.warning("evidence: %s", note)
    return evidence, notes
