"""Training throughput of probekit's fine-tuning loop beside a plain Hugging Face ``Trainer``.

Both train the same module (the embedded encoder, or ``--model``, with one linear layer over the
mean-pooled last hidden state: :class:`probekit.finetune._model.EncoderClassifier`) on the same
tokenized synthetic biographies with the same batch size, learning rate, schedule, weight decay
and gradient clipping, in this process. Both group examples of similar length into batches
(probekit: length-sorted buckets; Trainer: ``train_sampling_strategy="group_by_length"``) and pad
each batch to its longest text. Throughput is training examples per second over the timed steps
(step ends after the first ``--warmup`` steps, so model copies, Accelerate/Trainer set-up and
first-call allocations are not counted). The two are run alternately ``--repeats`` times; the
median of each is reported with the ratio probekit / Trainer (goal: >= 1.0x).

On a machine with CUDA the same comparison runs on the GPU in bf16 (``--gpu-batch-size``), and
the achieved model FLOP/s is reported as a fraction of the card's bf16 dense peak
(training FLOPs per token ~ 6 N + 12 L S d: N non-embedding parameters, L layers, S padded
sequence length, d hidden size; Kaplan et al. 2020; PaLM appendix B). Without CUDA that part is
skipped and the script says so.

Usage::

    python scripts/bench_finetune.py                      # CPU, embedded MiniLM
    python scripts/bench_finetune.py --steps 20 --repeats 3
    python scripts/bench_finetune.py --threads 2          # pin torch's intra-op threads

Prints ratios; asserts nothing about timings. Timings on a shared machine vary with its load:
compare figures from the same run only.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import logging
import os
import statistics
import sys
import tempfile
import time
import warnings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from probekit import load_encoder
from probekit.finetune import EncoderClassifier, FinetuneConfig, make_synthetic_bios, pad_batch, tokenize_texts, train_classifier

# bf16 dense tensor-core peak (TFLOP/s) by a substring of torch.cuda.get_device_name(); SXM parts.
PEAK_BF16_TFLOPS = {
    "H200": 989.4, "H100 PCIe": 756.0, "H100": 989.4, "A100": 312.0, "L40S": 362.1, "L4": 121.0,
    "A10G": 70.0, "A10": 125.0, "RTX 4090": 165.2, "RTX 3090": 71.0, "V100": 0.0,
}


def _examples(encoder, n: int, max_length: int, seed: int):

    data = make_synthetic_bios(n, 14, random_state=seed)["train"]
    examples = tokenize_texts(encoder.tokenizer, data["text"], max_length)
    for example, label in zip(examples, data["label"]):
        example["label"] = int(label)
    return list(data["text"]), list(data["label"]), examples


def _rate(stamps: list[float], batch_size: int, warmup: int) -> float:
    """Examples per second between the end of step ``warmup`` and the end of the last step."""
    timed = stamps[warmup - 1:] if warmup > 0 else stamps
    if len(timed) < 2:
        return float("nan")
    return batch_size * (len(timed) - 1) / (timed[-1] - timed[0])


def run_probekit(encoder, texts, labels, *, batch_size, max_length, steps, warmup, mixed_precision, device) -> float:

    n = batch_size * (steps + warmup)
    stamps: list[float] = []
    config = FinetuneConfig(epochs=1, batch_size=batch_size, max_length=max_length, learning_rate=2e-5,
                            mixed_precision=mixed_precision, device=device, seed=0)
    train_classifier(encoder, texts[:n], labels[:n], 14, config, progress=False,
                     callback=lambda step, values: stamps.append(time.perf_counter()))
    return _rate(stamps, batch_size, warmup)


def run_trainer(encoder, examples, *, batch_size, steps, warmup, bf16, use_cpu) -> float:
    from transformers import Trainer, TrainerCallback, TrainingArguments


    n = batch_size * (steps + warmup)
    model = copy.deepcopy(encoder.model).to("cpu").train()
    module = EncoderClassifier(model, 14, pooling="mean", head_init_seed=0)
    stamps: list[float] = []

    class Stamp(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            if torch.cuda.is_available() and not use_cpu:
                torch.cuda.synchronize()
            stamps.append(time.perf_counter())

    pad_id = encoder.tokenizer.pad_token_id
    with tempfile.TemporaryDirectory() as tmp:
        args = TrainingArguments(
            output_dir=tmp, per_device_train_batch_size=batch_size, num_train_epochs=1, learning_rate=2e-5,
            warmup_steps=0.1, weight_decay=0.01, max_grad_norm=1.0, lr_scheduler_type="linear",
            train_sampling_strategy="group_by_length", remove_unused_columns=False, use_cpu=use_cpu, bf16=bf16,
            report_to="none", save_strategy="no", logging_strategy="no", disable_tqdm=True, seed=0,
            dataloader_num_workers=0, dataloader_pin_memory=not use_cpu,
        )
        trainer = Trainer(model=module, args=args, train_dataset=examples[:n],
                          data_collator=lambda features: pad_batch(features, pad_id), callbacks=[Stamp()])
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):  # its end-of-run summary
            warnings.simplefilter("ignore")
            trainer.train()
    return _rate(stamps, batch_size, warmup)


def compare(encoder, texts, labels, examples, *, batch_size, max_length, steps, warmup, repeats, gpu: bool):
    ours, theirs = [], []
    for r in range(repeats):
        order = (0, 1) if r % 2 == 0 else (1, 0)  # alternate which goes first (load drift, allocator warm-up)
        for which in order:
            if which == 0:
                ours.append(run_probekit(encoder, texts, labels, batch_size=batch_size, max_length=max_length,
                                         steps=steps, warmup=warmup, mixed_precision="bf16" if gpu else "no",
                                         device=None if gpu else "cpu"))
            else:
                theirs.append(run_trainer(encoder, examples, batch_size=batch_size, steps=steps, warmup=warmup,
                                          bf16=gpu, use_cpu=not gpu))
        print(f"  repeat {r + 1}: probekit {ours[-1]:.2f} ex/s, Trainer {theirs[-1]:.2f} ex/s", flush=True)
    return statistics.median(ours), statistics.median(theirs)


def _flops_per_example(encoder, examples, batch_size: int) -> float:
    """Training FLOPs per example with batches padded to their longest text (as both loops do)."""
    config = encoder.model.config
    d, n_layers = int(config.hidden_size), int(config.num_hidden_layers)
    n_params = sum(p.numel() for name, p in encoder.model.named_parameters() if "embeddings" not in name)
    lengths = np.sort([len(e["input_ids"]) for e in examples])  # length-grouped batches: about sorted
    padded = [lengths[i:i + batch_size].max() * len(lengths[i:i + batch_size]) for i in range(0, len(lengths), batch_size)]
    tokens_per_example = float(np.sum(padded)) / len(lengths)
    seq = float(lengths.mean())
    return tokens_per_example * (6.0 * n_params + 12.0 * n_layers * seq * d)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="checkpoint (default: the embedded all-MiniLM-L6-v2)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=100)
    parser.add_argument("--steps", type=int, default=12, help="timed steps per run")
    parser.add_argument("--warmup", type=int, default=2, help="untimed first steps per run")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads (default: torch's choice)")
    parser.add_argument("--gpu-batch-size", type=int, default=64)
    parser.add_argument("--gpu-steps", type=int, default=40)
    parser.add_argument("--peak-tflops", type=float, default=None, help="the GPU's bf16 dense peak (default: from its name)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.threads:
        torch.set_num_threads(args.threads)

    from importlib.metadata import version


    encoder = load_encoder(args.model, device="cpu")
    print(f"model {encoder.name_or_path} (hidden {encoder.model.config.hidden_size}, "
          f"{encoder.model.config.num_hidden_layers} layers); torch {torch.__version__}, "
          f"transformers {version('transformers')}, accelerate {version('accelerate')}")
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"CPU: {os.cpu_count()} cores, torch threads {torch.get_num_threads()}, load average {load[0]:.2f} at start")

    n_cpu = args.batch_size * (args.steps + args.warmup)
    texts, labels, examples = _examples(encoder, max(n_cpu, args.gpu_batch_size * (args.gpu_steps + args.warmup)),
                                        args.max_length, seed=0)
    lengths = [len(e["input_ids"]) for e in examples[:n_cpu]]
    print(f"\nCPU, fp32: batch {args.batch_size}, max length {args.max_length} (texts: mean {np.mean(lengths):.0f} "
          f"tokens), {args.steps} timed steps after {args.warmup}, {args.repeats} repeats")
    ours, theirs = compare(encoder, texts, labels, examples, batch_size=args.batch_size, max_length=args.max_length,
                           steps=args.steps, warmup=args.warmup, repeats=args.repeats, gpu=False)
    print(f"CPU training throughput: probekit {ours:.2f} examples/s, Hugging Face Trainer {theirs:.2f} examples/s "
          f"-> ratio {ours / theirs:.2f}x (goal >= 1.0x)")
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"load average {load[0]:.2f} at the end (a shared machine: figures vary with its load)")

    if not torch.cuda.is_available():
        print("\nGPU part skipped: CUDA is not available on this machine (no bf16 throughput or utilization measured).")
        return 0
    name = torch.cuda.get_device_name()
    peak = args.peak_tflops or next((v for k, v in PEAK_BF16_TFLOPS.items() if k in name), None)
    encoder = load_encoder(args.model, device="cuda")
    print(f"\nGPU {name}, bf16: batch {args.gpu_batch_size}, {args.gpu_steps} timed steps after {args.warmup}")
    ours, theirs = compare(encoder, texts, labels, examples, batch_size=args.gpu_batch_size, max_length=args.max_length,
                           steps=args.gpu_steps, warmup=args.warmup, repeats=args.repeats, gpu=True)
    flops = _flops_per_example(encoder, examples[: args.gpu_batch_size * (args.gpu_steps + args.warmup)], args.gpu_batch_size)
    print(f"GPU training throughput: probekit {ours:.1f} examples/s, Trainer {theirs:.1f} examples/s -> ratio {ours / theirs:.2f}x")
    for label, rate in (("probekit", ours), ("Trainer", theirs)):
        achieved = rate * flops / 1e12
        share = f"{achieved / peak:.1%} of the {peak:.0f} TFLOP/s bf16 dense peak" if peak else "peak unknown (--peak-tflops)"
        print(f"  {label}: {achieved:.2f} model TFLOP/s = {share}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
