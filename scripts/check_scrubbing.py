"""Concept scrubbing on the embedded encoder: the gender probe's balanced accuracy at every layer.

Fits :class:`debias.ConceptScrubbing` on the embedded MiniLM encoder over the built-in corpus
(the attribute-word occurrences ``probekit probe`` uses), then, at every hidden state, reads gender
from the attribute-word occurrences with held-out *words* (5 word-grouped folds): a linear probe
(probekit's ``fit_linear_probe``: standardized, class-balanced, C by word-grouped CV; dimensions whose
standard deviation is below 1e-6 of the largest are dropped first, see issue 25's LEACE artefact) and
an MLP probe (scikit-learn, one hidden layer of 64, early stopping). Balanced accuracy of the pooled
out-of-fold predictions with a 95% percentile interval from 1000 bootstrap resamples of the words.
Prints the table before and after scrubbing.

Usage: python scripts/check_scrubbing.py [--max-per-word 100] [--skip-before]
"""

from __future__ import annotations

import argparse
import logging
import time
import warnings

import numpy as np
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import GroupKFold
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from debias import ConceptScrubbing, apply_projection
from probekit import load_encoder
from probekit.embedding import attribute_embeddings
from probekit.intrinsic import fit_linear_probe


def _kept_dimensions(X: np.ndarray) -> np.ndarray:
    std = X.std(axis=0)
    return std > 1e-6 * std.max()


def _out_of_fold(X: np.ndarray, y: np.ndarray, words: np.ndarray, reader: str) -> np.ndarray:
    predictions = np.empty_like(y)
    for train, test in GroupKFold(n_splits=5).split(X, y, words):
        keep = _kept_dimensions(X[train])
        if reader == "linear":
            probe = fit_linear_probe(X[train][:, keep], y[train], words[train], seed=0)
            predictions[test] = probe.model.predict(X[test][:, keep])
        else:
            model = make_pipeline(StandardScaler(), MLPClassifier(hidden_layer_sizes=(64,), early_stopping=True,
                                                                 max_iter=300, random_state=0))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(X[train][:, keep], y[train])
            predictions[test] = model.predict(X[test][:, keep])
    return predictions


def _balanced_with_interval(y: np.ndarray, predictions: np.ndarray, words: np.ndarray) -> tuple[float, float, float]:
    rng = np.random.default_rng(0)
    unique = np.unique(words)
    rows = {w: np.flatnonzero(words == w) for w in unique}
    draws = []
    for _ in range(1000):
        sample = np.concatenate([rows[w] for w in rng.choice(unique, size=len(unique), replace=True)])
        if len(np.unique(y[sample])) == 2:
            draws.append(balanced_accuracy_score(y[sample], predictions[sample]))
    low, high = np.percentile(draws, [2.5, 97.5])
    return balanced_accuracy_score(y, predictions), float(low), float(high)


def _table(encoder, n_layers: int, max_per_word: int) -> None:
    occurrences, female, _ = attribute_embeddings(encoder, layer=list(range(n_layers + 1)), max_per_word=max_per_word,
                                                  progress=False)
    y = np.isin(occurrences.words, female).astype(int)
    words = np.asarray(occurrences.words)
    print(f"  {len(y)} occurrences of {len(np.unique(words))} words")
    for layer in range(n_layers + 1):
        X = occurrences.embeddings[:, layer, :].astype(np.float64)
        cells = []
        for reader in ("linear", "mlp"):
            value, low, high = _balanced_with_interval(y, _out_of_fold(X, y, words, reader), words)
            cells.append(f"{reader} {value:.3f} [{low:.3f}, {high:.3f}]")
        print(f"  layer {layer}: " + "   ".join(cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-per-word", type=int, default=100)
    parser.add_argument("--skip-before", action="store_true", help="only the table after scrubbing")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("debias").setLevel(logging.INFO)  # one line per scrubbed hidden state
    base = load_encoder(None, device="cpu")  # the embedded default (all-MiniLM-L6-v2)
    started = time.perf_counter()
    scrubber = ConceptScrubbing().fit_from_encoder(base, max_per_word=args.max_per_word, progress=False)
    print(f"fitted ConceptScrubbing in {time.perf_counter() - started:.0f} s; ranks {scrubber.ranks_}")
    if not args.skip_before:
        print("before scrubbing (balanced accuracy, 95% word-bootstrap interval):")
        _table(base, base.num_layers, args.max_per_word)
    print("after scrubbing:")
    _table(apply_projection(base, scrubber), base.num_layers, args.max_per_word)


if __name__ == "__main__":
    main()
