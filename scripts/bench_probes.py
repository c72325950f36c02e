"""Benchmark of the readers (not a test: prints figures, asserts nothing).

The embedded encoder (``probekit.load_encoder(None)``, MiniLM-L6) over the built-in template
corpus: the gender attribute words' occurrences (as ``probekit probe`` extracts them, up to 100
sentences per word) at all 7 hidden states. At each layer, on the same word-disjoint split (20 % of
each gender's words held out):

  (a) probekit: every reader (linear, MLP, kernel) via :func:`probekit.intrinsic.read_concept`
      without the control task: near-constant columns dropped, standardization, word-grouped
      cross-validation of each reader's hyperparameters (the MLP's epochs included), a
      word-bootstrap interval (1,000 replicates);
  (b) a plain scikit-learn loop doing the same fits: ``StandardScaler`` + ``LogisticRegressionCV``
      on ``GroupKFold``; ``GridSearchCV`` over ``MLPClassifier(early_stopping=True)`` on the same
      widths and L2 strengths (its early stopping on a random 10 % of rows, not grouped by word);
      ``Nystroem`` + ``LogisticRegressionCV``; no interval;
  (c) the full verdict (:func:`probekit.intrinsic.read_layer`): the three readers with their
      control tasks, the MDL (online code) of the linear and MLP families, and the verdict.

Prints wall time per part, the ratio (a) / (b), the total of (c) and the peak resident memory of
the process (``resource.getrusage``). Usage: python scripts/bench_probes.py [--max-per-word 100]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time

import numpy as np

from probekit import load_encoder
from probekit.embedding import embed_selected_words, paper_word_sets
from probekit.intrinsic import READERS, read_concept, read_layer, split_words
from probekit.text import template_corpus


def attribute_occurrences(max_per_word: int):
    encoder = load_encoder(None)  # the embedded default encoder (MiniLM-L6)
    sets = paper_word_sets(encoder, single_piece_only=True)
    female, male = sets["female_attributes"], sets["male_attributes"]
    layers = list(range(encoder.num_layers + 1))
    embeddings, _ = embed_selected_words(encoder, template_corpus(), female + male, max_per_word=max_per_word,
                                         selection_seed=0, layer=layers, progress=False)
    labels = np.where(np.isin(embeddings.words, female), "female", "male")
    return embeddings.embeddings, labels, np.asarray(embeddings.words), layers


def plain_sklearn(X: np.ndarray, y: np.ndarray, words: np.ndarray, test: np.ndarray) -> dict[str, float]:
    """The same three readers as a plain scikit-learn loop; held-out balanced accuracy of each."""
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import GridSearchCV, GroupKFold
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    train = ~test
    Cs = [1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0]
    linear = make_pipeline(StandardScaler(), LogisticRegressionCV(Cs=Cs, cv=GroupKFold(5), scoring="neg_log_loss",
                                                                 class_weight="balanced", max_iter=1000))
    linear.fit(X[train], y[train], logisticregressioncv__groups=words[train])
    mlp = GridSearchCV(make_pipeline(StandardScaler(), MLPClassifier(early_stopping=True, max_iter=40, random_state=0)),
                       {"mlpclassifier__hidden_layer_sizes": [(64,), (64, 64)], "mlpclassifier__alpha": [1e-3, 1e-1]},
                       cv=GroupKFold(3), scoring="neg_log_loss")
    mlp.fit(X[train], y[train], groups=words[train])
    kernel = make_pipeline(StandardScaler(), Nystroem(gamma=1 / X.shape[1], n_components=300, random_state=0),
                           StandardScaler(), LogisticRegressionCV(Cs=Cs, cv=GroupKFold(5), scoring="neg_log_loss",
                                                                  class_weight="balanced", max_iter=1000))
    kernel.fit(X[train], y[train], logisticregressioncv__groups=words[train])
    return {name: float(balanced_accuracy_score(y[test], model.predict(X[test])))
            for name, model in (("linear", linear), ("mlp", mlp), ("kernel", kernel))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-per-word", type=int, default=100)
    args = parser.parse_args()
    started = time.perf_counter()
    E, labels, words, layers = attribute_occurrences(args.max_per_word)
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs; load average {os.getloadavg()}")
    print(f"{E.shape[0]} attribute occurrences of {np.unique(words).size} words, {len(layers)} hidden states "
          f"x {E.shape[2]} dims; extraction {time.perf_counter() - started:.1f} s")
    ours = plain = full = 0.0
    _, codes = np.unique(labels, return_inverse=True)
    test_words = sorted(set(words[split_words(words, codes, 0.2, np.random.default_rng(0))]))
    for index, layer in enumerate(layers):
        X = E[:, index, :].astype(np.float64)
        t0 = time.perf_counter()
        results = {name: read_concept(X, labels, words, reader=name, test_words=test_words, control=False,
                                      random_state=0) for name in READERS}
        t1 = time.perf_counter()
        reference = plain_sklearn(X, labels, words, np.isin(words, test_words))
        t2 = time.perf_counter()
        verdict = read_layer(X, labels, words, readers=READERS, mdl=("linear", "mlp"), test_words=test_words,
                             random_state=0)
        t3 = time.perf_counter()
        ours, plain, full = ours + t1 - t0, plain + t2 - t1, full + t3 - t2
        cells = "  ".join(f"{n} {r.balanced_accuracy:.2f} (sklearn {reference[n]:.2f})" for n, r in results.items())
        print(f"layer {layer}: {cells}; verdict {verdict['verdict']['verdict']}, MDL "
              + ", ".join(f"{k} {v:.2f}" for k, v in verdict["mdl"].items())
              + f"; readers {t1 - t0:.1f} s, sklearn loop {t2 - t1:.1f} s, full verdict {t3 - t2:.1f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"all readers, 7 layers: probekit {ours:.1f} s, plain scikit-learn loop {plain:.1f} s "
          f"(ratio probekit / sklearn {ours / plain:.2f}x)")
    print(f"full verdict (3 readers + control tasks + linear and MLP MDL), 7 layers: {full:.1f} s")
    print(f"total wall {time.perf_counter() - started:.1f} s; peak resident memory {peak:.0f} MiB; "
          f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
