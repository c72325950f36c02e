"""Training speed of CDA and Context-debias on the embedded default encoder (all-MiniLM-L6-v2).

For each method the script builds the method's real training data from the built-in template
corpus, exactly as ``fit`` does (CDA: gendered sentences and their counterfactuals, a new masked-LM
head since the default has none; Context-debias: stereotype and attribute sentences, the original
model's attribute vectors), then times

* ``debias.train`` (the shared Accelerate loop: seeded per-step collate and dropout, AdamW, linear
  schedule, gradient clipping, loss logging) for ``--steps`` optimizer steps, and
* a plain PyTorch loop over the *same* batches on a copy of the *same* module in the same process
  (forward, backward, clip, ``AdamW.step``, ``zero_grad``; nothing else),

and prints steps/s, examples/s and non-padding tokens/s of both (from the median step time of
alternating rounds), the ratio of the loop's tokens/s to the plain loop's, and the process CPU
time per step. It also times the fixed set-up cost of each method's ``fit`` (data preparation;
for Context-debias the attribute vectors and one dev evaluation) so that a default number of
steps can be turned into a wall time. On a machine shared with other work wall times swing by
an order of magnitude; ``--threads 1`` gives CPU seconds per step that hardly depend on the load.
Say how many cores, and the load average the script prints, with any figure.

Usage::

    python scripts/bench_debias_training.py [--steps 10] [--rounds 3] [--max-per-word 20] [--batch-size 32] [--max-length 128]
        [--threads N] [--method cda|context-debias|both]
"""

from __future__ import annotations

import argparse
import copy
import os
import time

import probekit
import wordlists
from debias import (
    CDA,
    ContextDebias,
    ContextDebiasCollator,
    ContextDebiasObjective,
    MaskedLMCollator,
    MaskedLMObjective,
    add_mlm_head,
    attribute_vectors,
    context_debias_dev_loss,
    context_debias_layers,
    pad_token_id,
)
from probekit.training import TrainingConfig, train


def _tokens(batch) -> int:
    return int(batch["attention_mask"].sum())


def _plain_steps(module, batches, loss_fn, optimizer, parameters) -> list[float]:
    """Forward + backward + clip + AdamW step per batch; seconds of each step."""
    import torch

    module.train()
    times = []
    for batch in batches:
        started, cpu = time.perf_counter(), time.process_time()
        loss = loss_fn(module, batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(parameters, 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        times.append((time.perf_counter() - started, time.process_time() - cpu))
    module.eval()
    return times


def _median(values: list[float]) -> float:
    import statistics

    return statistics.median(values)


def _time_both(name: str, objective, dataset, collate, loss_fn, *, steps: int, rounds: int, batch_size: int,
               learning_rate: float, warmup: int = 2) -> dict:
    """Per-step times of debias.train and of the plain loop on the same batches, in alternating rounds.

    Each round runs ``debias.train`` for ``warmup + steps`` steps (the first ``warmup`` untimed: set-up,
    optimizer state allocation) and then the plain loop over the same timed batches. On a shared machine
    the median step time over all rounds is the figure least disturbed by other work.
    """
    import torch


    plain_module = copy.deepcopy(objective)
    parameters = [p for p in plain_module.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(parameters, lr=learning_rate)
    config = TrainingConfig(learning_rate=learning_rate, max_steps=warmup + steps, batch_size=batch_size,
                            device="cpu", seed=0, warmup_ratio=0.0, log_every=10**9)
    ours: list[tuple[float, float]] = []  # (wall, CPU) seconds of each step
    plain: list[tuple[float, float]] = []
    timed: list = []
    for round_ in range(rounds):
        seen: list = []
        step_times: list[tuple[float, float]] = []
        last = [0.0, 0.0]

        def recording_collate(examples, generator, collate=collate, seen=seen):
            batch = collate(examples, generator)
            seen.append(batch)
            return batch

        def tick(step, values, step_times=step_times, last=last):
            now, cpu = time.perf_counter(), time.process_time()
            step_times.append((now - last[0], cpu - last[1]))
            last[0], last[1] = now, cpu

        last[0], last[1] = time.perf_counter(), time.process_time()
        train(objective, dataset, config, collate_fn=recording_collate, loss_fn=loss_fn, progress=False, callback=tick)
        ours.extend(step_times[warmup:])
        timed = seen[warmup:]
        if round_ == 0:
            _plain_steps(plain_module, seen[:warmup], loss_fn, optimizer, parameters)  # the plain loop's warm-up
        plain.extend(_plain_steps(plain_module, timed, loss_fn, optimizer, parameters))
    tokens = sum(_tokens(b) for b in timed) / len(timed)  # per step (the same batches every round)
    examples = sum(int(b["input_ids"].shape[0]) for b in timed) / len(timed)
    padded = sum(int(b["input_ids"].numel()) for b in timed) / len(timed)
    step, plain_step = _median([w for w, _ in ours]), _median([w for w, _ in plain])
    cpu, plain_cpu = _median([c for _, c in ours]), _median([c for _, c in plain])
    return {
        "method": name, "steps": len(ours), "step_s": step, "plain_step_s": plain_step,
        "steps_per_s": 1 / step, "examples_per_s": examples / step, "tokens_per_s": tokens / step,
        "plain_tokens_per_s": tokens / plain_step, "ratio": plain_step / step,
        "mean_steps_per_s": len(ours) / sum(w for w, _ in ours),
        "cpu_s_per_step": cpu, "plain_cpu_s_per_step": plain_cpu, "cpu_ratio": plain_cpu / cpu,
        "mean_tokens": tokens / examples, "padding_share": 1 - tokens / padded, "threads": torch.get_num_threads(),
    }


def bench_cda(encoder, args) -> tuple[dict, dict]:
    import torch


    setup = {}
    started = time.perf_counter()
    cda = CDA(add_mlm_head=True, batch_size=args.batch_size, max_length=args.max_length)
    sentences, data = cda._augmented_corpus(None)
    setup["swap_seconds"] = time.perf_counter() - started
    setup["n_training_sentences"] = len(sentences)
    model = add_mlm_head(copy.deepcopy(encoder.model), generator=torch.Generator().manual_seed(0))
    for name, parameter in model.base_model.named_parameters():
        if name.startswith("pooler."):
            parameter.requires_grad_(False)
    collate = MaskedLMCollator(encoder.tokenizer, model.config.vocab_size, 0.15, args.max_length)
    objective = MaskedLMObjective(model)
    result = _time_both("cda", objective, sentences, collate, lambda m, b: m(**b), steps=args.steps,
                        rounds=args.rounds, batch_size=args.batch_size, learning_rate=5e-5)
    # The head warm-up (encoder frozen): the same forward, a backward through the head only.
    frozen = [p for p in model.base_model.parameters() if p.requires_grad]
    for parameter in frozen:
        parameter.requires_grad_(False)
    warm = _time_both("cda head warm-up", objective, sentences, collate, lambda m, b: m(**b), steps=args.steps,
                      rounds=args.rounds, batch_size=args.batch_size, learning_rate=1e-3)
    for parameter in frozen:
        parameter.requires_grad_(True)
    return {"main": result, "warmup": warm}, setup


def bench_context_debias(encoder, args) -> tuple[dict, dict]:
    import torch


    setup = {}
    attributes = wordlists.load_paper_attributes()
    female, male = tuple(attributes.female), tuple(attributes.male)
    stereotypes = tuple(wordlists.load_paper_stereotypes().words)
    method = ContextDebias(batch_size=args.batch_size, max_length=args.max_length, max_per_word=args.max_per_word or None)
    generator = torch.Generator().manual_seed(0)
    started = time.perf_counter()
    stereotype_examples, attribute_examples, data = method._select(encoder, None, female, male, stereotypes, generator)
    stereotype_train, _ = method._dev_split(stereotype_examples, generator)
    attribute_train, _ = method._dev_split(attribute_examples, generator)
    setup["select_and_tokenize_seconds"] = time.perf_counter() - started
    setup["n_stereotype_train"] = len(stereotype_train)
    setup["n_attribute_train"] = len(attribute_train)
    started = time.perf_counter()
    vectors = attribute_vectors(encoder, [e.text for e in attribute_train], female, male, progress=False)
    setup["attribute_vectors_seconds"] = time.perf_counter() - started
    trained = copy.deepcopy(encoder.model)
    for name, parameter in trained.named_parameters():
        if name.startswith("pooler."):
            parameter.requires_grad_(False)
    original = copy.deepcopy(encoder.model).eval().requires_grad_(False)
    objective = ContextDebiasObjective(trained, original, vectors, context_debias_layers("all", encoder.num_layers), 0.2, 0.8)
    collate = ContextDebiasCollator(pad_token_id(encoder.tokenizer), "token")
    result = _time_both("context-debias", objective, stereotype_train + attribute_train, collate,
                        lambda m, b: m(**b)["loss"], steps=args.steps, rounds=args.rounds, batch_size=args.batch_size,
                        learning_rate=5e-5)
    # One dev evaluation (the default dev_size sentences of each kind, no gradients; ten per run by default).

    dev = sorted(stereotype_examples[:method.dev_size] + attribute_examples[:method.dev_size], key=lambda e: len(e.ids))
    batches = [collate(dev[i:i + args.batch_size]) for i in range(0, len(dev), args.batch_size)]
    started = time.perf_counter()
    with torch.no_grad():
        context_debias_dev_loss(objective.eval(), batches, torch.device("cpu"))
    setup["one_dev_evaluation_seconds"] = time.perf_counter() - started
    return {"main": result}, setup


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=10, help="timed steps per loop and round (after 2 untimed)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of both loops (median step time)")
    parser.add_argument("--max-per-word", type=int, default=20,
                        help="Context-debias: sentences per word, as ContextDebias(max_per_word=...) (0: all)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--method", default="both", choices=["cda", "context-debias", "both"])
    args = parser.parse_args(argv)

    import logging
    import warnings

    import torch


    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    if args.threads:
        torch.set_num_threads(args.threads)
    started = time.perf_counter()
    encoder = probekit.load_encoder(None, device="cpu")
    print(f"encoder {encoder.name_or_path} ({encoder.num_layers} layers, hidden {encoder.hidden_size}), "
          f"loaded in {time.perf_counter() - started:.1f} s")
    print(f"CPU cores visible: {os.cpu_count()}, torch threads: {torch.get_num_threads()}, "
          f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"batch {args.batch_size}, max length {args.max_length}, {args.rounds} rounds of {args.steps} timed steps per loop\n")

    runs = []
    if args.method in ("cda", "both"):
        runs.append(("cda",) + bench_cda(encoder, args))
    if args.method in ("context-debias", "both"):
        runs.append(("context-debias",) + bench_context_debias(encoder, args))
    header = (f"{'loop':<18} {'steps/s':>8} {'(mean)':>7} {'examples/s':>11} {'tokens/s':>9} {'plain tokens/s':>15} "
              f"{'ratio':>6} {'CPU s/step':>10} {'plain':>6} {'ratio':>6} {'tok/ex':>7} {'pad':>5}")
    print(header)
    print("-" * len(header))
    for _, results, _ in runs:
        for r in results.values():
            print(f"{r['method']:<18} {r['steps_per_s']:>8.3f} {r['mean_steps_per_s']:>7.3f} {r['examples_per_s']:>11.1f} "
                  f"{r['tokens_per_s']:>9.0f} {r['plain_tokens_per_s']:>15.0f} {r['ratio']:>6.3f} "
                  f"{r['cpu_s_per_step']:>10.3f} {r['plain_cpu_s_per_step']:>6.3f} {r['cpu_ratio']:>6.3f} "
                  f"{r['mean_tokens']:>7.1f} {r['padding_share']:>5.2f}")
    print("\nsteps/s, examples/s, tokens/s (non-padding): from the median step time over all rounds; (mean): steps / total time")
    print("ratio = tokens/s of debias.train / tokens/s of a plain PyTorch loop on the same module and batches (medians)")
    print("CPU s/step: process CPU time per step (all threads; median), and its ratio plain/ours. On a machine shared")
    print("with other work, run with --threads 1: CPU time per step is then close to the step's work whatever the")
    print("load, and wall time on k dedicated cores is about CPU s/step / (k x parallel efficiency).")
    for name, _, setup in runs:
        print(f"{name} set-up: " + ", ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in setup.items()))
    print(f"load average now: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
