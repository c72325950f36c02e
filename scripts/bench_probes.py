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
  (c) the full verdict (:func:`probekit.intrinsic.read_layer`) at ``--verdict-layers`` (default:
      the last): the three readers with their control tasks, the MDL (online code) of the linear and
      MLP families, and the verdict.

Prints wall time per part, the ratio (a) / (b), the time of (c), process CPU time and the peak
resident memory of the process (``resource.getrusage``; it includes the extraction).
Part (b) runs at ``--reference-layers`` (default: all) and the ratio compares (a) and (b) on those
layers only, so a quiet-machine run can time (a) on all 7 hidden states with (b) on one of them.
Usage: python scripts/bench_probes.py [--max-per-word 100] [--cache-dir DIR] [--verdict-layers 6|all]
       [--reference-layers all|6]
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


def attribute_occurrences(max_per_word: int, cache_dir: str | None = None):
    encoder = load_encoder(None)  # the embedded default encoder (MiniLM-L6)
    sets = paper_word_sets(encoder, single_piece_only=True)
    female, male = sets["female_attributes"], sets["male_attributes"]
    layers = list(range(encoder.num_layers + 1))
    embeddings, _ = embed_selected_words(encoder, template_corpus(), female + male, max_per_word=max_per_word,
                                         selection_seed=0, layer=layers, cache_dir=cache_dir, progress=False)
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
    folds5 = list(GroupKFold(5).split(X[train], y[train], words[train]))
    linear = make_pipeline(StandardScaler(), LogisticRegressionCV(Cs=Cs, cv=folds5, scoring="neg_log_loss",
                                                                 class_weight="balanced", max_iter=1000))
    linear.fit(X[train], y[train])
    mlp = GridSearchCV(make_pipeline(StandardScaler(), MLPClassifier(early_stopping=True, max_iter=40, random_state=0)),
                       {"mlpclassifier__hidden_layer_sizes": [(64,), (64, 64)], "mlpclassifier__alpha": [1e-3, 1e-1]},
                       cv=GroupKFold(3), scoring="neg_log_loss")
    mlp.fit(X[train], y[train], groups=words[train])
    kernel = make_pipeline(StandardScaler(), Nystroem(gamma=1 / X.shape[1], n_components=300, random_state=0),
                           StandardScaler(), LogisticRegressionCV(Cs=Cs, cv=folds5, scoring="neg_log_loss",
                                                                  class_weight="balanced", max_iter=1000))
    kernel.fit(X[train], y[train])
    return {name: float(balanced_accuracy_score(y[test], model.predict(X[test])))
            for name, model in (("linear", linear), ("mlp", mlp), ("kernel", kernel))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-per-word", type=int, default=100)
    parser.add_argument("--cache-dir", default=None, help="embedding cache (a rerun skips the extraction)")
    parser.add_argument("--verdict-layers", default="6",
                        help="hidden states of part (c), comma-separated, or 'all' (default: 6, the last)")
    parser.add_argument("--reference-layers", default="all",
                        help="hidden states of part (b), comma-separated, or 'all' (default)")
    args = parser.parse_args()
    started = time.perf_counter()
    E, labels, words, layers = attribute_occurrences(args.max_per_word, args.cache_dir)
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs; load average {os.getloadavg()}")
    print(f"{E.shape[0]} attribute occurrences of {np.unique(words).size} words, {len(layers)} hidden states "
          f"x {E.shape[2]} dims; extraction {time.perf_counter() - started:.1f} s", flush=True)
    _, codes = np.unique(labels, return_inverse=True)
    test_words = sorted(set(words[split_words(words, codes, 0.2, np.random.default_rng(0))]))
    referenced = layers if args.reference_layers == "all" else [int(v) for v in args.reference_layers.split(",")]
    ours = ours_referenced = plain = 0.0
    for index, layer in enumerate(layers):
        X = E[:, index, :].astype(np.float64)
        t0 = time.perf_counter()
        results = {name: read_concept(X, labels, words, reader=name, test_words=test_words, control=False,
                                      random_state=0) for name in READERS}
        t1 = time.perf_counter()
        cells = "  ".join(f"{n} {r.balanced_accuracy:.2f} {r.params}" for n, r in results.items())
        print(f"layer {layer}: probekit {t1 - t0:.1f} s: {cells}; dropped columns {results['linear'].n_dropped_columns}",
              flush=True)
        ours += t1 - t0
        if layer not in referenced:
            continue
        reference = plain_sklearn(X, labels, words, np.isin(words, test_words))
        t2 = time.perf_counter()
        ours_referenced, plain = ours_referenced + t1 - t0, plain + t2 - t1
        print(f"layer {layer}: sklearn loop {t2 - t1:.1f} s: "
              + "  ".join(f"{n} {v:.2f}" for n, v in reference.items()), flush=True)
    print(f"all readers, {len(layers)} layers: probekit {ours:.1f} s", flush=True)
    print(f"at layers {referenced}: probekit {ours_referenced:.1f} s, plain scikit-learn loop {plain:.1f} s "
          f"(ratio probekit / sklearn {ours_referenced / plain:.2f}x)", flush=True)
    chosen = layers if args.verdict_layers == "all" else [int(v) for v in args.verdict_layers.split(",")]
    for layer in chosen:
        t0 = time.perf_counter()
        X = E[:, layers.index(layer), :].astype(np.float64)
        verdict = read_layer(X, labels, words, readers=READERS, mdl=("linear", "mlp"), test_words=test_words,
                             random_state=0)
        print(f"full verdict at layer {layer} (3 readers + control tasks + linear and MLP MDL): "
              f"{verdict['verdict']['verdict']}; MDL " + ", ".join(f"{k} {v:.2f}" for k, v in verdict["mdl"].items())
              + ", selectivity " + ", ".join(f"{n} {r['selectivity']:.2f}" for n, r in verdict["readers"].items())
              + f"; {time.perf_counter() - t0:.1f} s", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    print(f"total wall {time.perf_counter() - started:.1f} s, CPU {cpu.ru_utime + cpu.ru_stime:.1f} s; "
          f"peak resident memory {peak:.0f} MiB; load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
