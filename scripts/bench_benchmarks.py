"""Benchmark of batched pseudo-log-likelihood scoring (not a test: prints figures, asserts nothing).

CrowS-Pairs-style pairs (built here from templates: a gendered word swapped, nothing third-party)
scored on a small random BERT masked LM over the embedded tokenizer's vocabulary, two ways, in one run:

  (a) probekit.intrinsic.score_crows_pairs: the masked copies of all pairs batched together
      (token-budget batches of one length, the vocabulary head only at the masked row);
  (b) the public code's way (bias-bench, Nangia et al.): one sentence at a time, one forward pass of
      the full masked-LM model per masked copy.

Both use the same token alignment (difflib over token ids), so the scores must agree; the script
prints the largest absolute difference and whether every pair's outcome (after rounding to three
decimals) is the same, then the ratio of the times. Run with `uptime` beside it: the machine is shared.

Usage: python scripts/bench_benchmarks.py [--pairs 200] [--scoring diff|shared] [--hidden 256] [--layers 4]
The last line reads ``speed-up vs one-sentence-at-a-time loop: X.Xx``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import torch

from probekit.encoders import Encoder, default_model_path
from probekit.intrinsic import CrowsPair, crows_outcomes, score_crows_pairs

TEMPLATES = [
    "The {} was late for the meeting because of the traffic on the bridge.",
    "Everyone knew that the {} could not fix the broken car engine.",
    "My {} always cooks dinner for the whole family on sunday evenings.",
    "The {} asked the manager for a raise after ten years of hard work.",
    "After the accident, the {} cried for hours in the hospital waiting room.",
    "A {} like that should never be trusted with the company's money.",
    "The {} was too emotional to lead the team through the crisis.",
    "Nobody expected the {} to win the chess tournament this year.",
]
WORDS = [("woman", "man"), ("mother", "father"), ("girl", "boy"), ("sister", "brother"), ("wife", "husband"),
         ("grandmother", "grandfather"), ("lady", "gentleman"), ("daughter", "son")]


def make_pairs(n: int) -> list[CrowsPair]:
    pairs = []
    for k in range(n):
        template = TEMPLATES[k % len(TEMPLATES)]
        female, male = WORDS[(k // len(TEMPLATES)) % len(WORDS)]
        prefix = "" if k < len(TEMPLATES) * len(WORDS) else f"In story {k}, "
        direction = "stereo" if k % 3 else "antistereo"
        pairs.append(CrowsPair(prefix + template.format(female), prefix + template.format(male), direction, "gender", k))
    return pairs


def loop_scores(encoder: Encoder, pairs: list[CrowsPair], scoring: str) -> tuple[np.ndarray, np.ndarray]:
    """One sentence at a time, one full forward pass per masked copy (the public code's way)."""
    import difflib

    tokenizer, model = encoder.tokenizer, encoder.mlm_model
    more, less = [], []
    for pair in pairs:
        first, second = (pair.sent_more, pair.sent_less) if pair.direction == "stereo" else (pair.sent_less, pair.sent_more)
        ids1, ids2 = tokenizer.encode(first, return_tensors="pt"), tokenizer.encode(second, return_tensors="pt")
        ops = difflib.SequenceMatcher(None, [str(x) for x in ids1[0].tolist()], [str(x) for x in ids2[0].tolist()]).get_opcodes()
        keep = (lambda op: op != "equal") if scoring == "diff" else (lambda op: op == "equal")
        span1 = [i for op, a0, a1, _, _ in ops if keep(op) for i in range(a0, a1)]
        span2 = [j for op, _, _, b0, b1 in ops if keep(op) for j in range(b0, b1)]
        if scoring == "shared":
            span1, span2 = span1[1:-1], span2[1:-1]
        scores = []
        for ids, span in ((ids1, span1), (ids2, span2)):
            values = []
            for position in span:
                masked = ids.clone()
                masked[0, position] = tokenizer.mask_token_id
                with torch.inference_mode():
                    logits = model(masked).logits[0, position]
                values.append(torch.log_softmax(logits, dim=-1)[ids[0, position]].item())
            scores.append(np.mean(values) if scoring == "diff" else np.sum(values))
        s1, s2 = scores
        more.append(s1 if pair.direction == "stereo" else s2)
        less.append(s2 if pair.direction == "stereo" else s1)
    return np.asarray(more), np.asarray(less)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--scoring", default="diff", choices=["diff", "shared"])
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    tokenizer = AutoTokenizer.from_pretrained(str(default_model_path()))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=args.hidden, num_hidden_layers=args.layers,
                        num_attention_heads=max(1, args.hidden // 64), intermediate_size=4 * args.hidden)
    generator = torch.random.fork_rng(devices=[])
    with generator:
        torch.manual_seed(0)
        model = BertForMaskedLM(config).eval()
    encoder = Encoder.from_model(model, tokenizer, name=f"random-bert-h{args.hidden}-l{args.layers}", device="cpu")
    pairs = make_pairs(args.pairs)
    print(f"{platform.processor() or platform.machine()}, torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"model hidden={args.hidden} layers={args.layers} vocab={tokenizer.vocab_size}; {len(pairs)} pairs, scoring={args.scoring}")

    score_crows_pairs(encoder, pairs[:4], scoring=args.scoring)  # warm-up
    start = time.perf_counter()
    batched_more, batched_less = score_crows_pairs(encoder, pairs, scoring=args.scoring)
    batched = time.perf_counter() - start
    start = time.perf_counter()
    loop_more, loop_less = loop_scores(encoder, pairs, args.scoring)
    loop = time.perf_counter() - start

    diff = max(np.nanmax(np.abs(batched_more - loop_more)), np.nanmax(np.abs(batched_less - loop_less)))
    same = np.array_equal(crows_outcomes(batched_more, batched_less), crows_outcomes(loop_more, loop_less), equal_nan=True)
    print(f"batched (probekit): {batched:.2f} s")
    print(f"one sentence at a time, one pass per masked copy: {loop:.2f} s")
    print(f"largest |score difference|: {diff:.2e}; every pair's outcome identical: {same}")
    print(f"speed-up vs one-sentence-at-a-time loop: {loop / batched:.1f}x")


if __name__ == "__main__":
    main()
