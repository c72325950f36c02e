"""Batched masked-token log-probabilities: the engine of CrowS-Pairs, StereoSet and pseudo-perplexity.

Pseudo-log-likelihood (Salazar et al. 2020) needs one masked copy of a sentence per scored token.
The public benchmark code runs those copies one forward pass each. Here the masked copies of many
sentences are packed together: copies of one exact length share a batch under a token budget (as
the extraction engine does, :func:`probekit.embedding.default_batch_tokens`), so no padding and no
attention mask are needed, and the masked-LM head (a projection onto the whole vocabulary, the
costliest part of a small model) is applied only at the masked position of each copy.
"""

from __future__ import annotations

import logging
from typing import Any, Iterator, Sequence

import numpy as np
import torch

from debias import self_debiased_log_probs
from probekit.embedding import default_batch_tokens
from probekit.errors import InvalidParameterError, MissingMLMHeadError

logger = logging.getLogger(__name__)

#: Attribute names of a masked-LM model's per-token head (BERT: ``cls``; RoBERTa family: ``lm_head``).
_TOKEN_HEADS = ("cls", "lm_head")


def require_mlm_head(encoder: Any, what: str) -> None:
    """Raise :class:`~probekit.errors.MissingMLMHeadError` when ``encoder`` cannot score masked tokens.

    Parameters
    ----------
    encoder : Encoder
    what : str
        The computation that needs the head, named in the message (e.g. ``"CrowS-Pairs"``).
    """
    if getattr(encoder, "mlm_model", None) is None:
        name = getattr(encoder, "name_or_path", "this checkpoint")
        raise MissingMLMHeadError(
            f"{what} needs a masked-LM head, and {name!r} has none (it was saved as a base encoder or with "
            "another task head); pass a checkpoint saved with its masked-LM head (a *ForMaskedLM model)"
        )
    if getattr(encoder.tokenizer, "mask_token_id", None) is None:
        raise MissingMLMHeadError(f"{what} needs a tokenizer with a mask token; the tokenizer of this encoder has none")


def _token_head(mlm_model: Any) -> Any | None:
    """The per-token output head of a masked-LM model, or None when it has no known one."""
    for name in _TOKEN_HEADS:
        head = getattr(mlm_model, name, None)
        if isinstance(head, torch.nn.Module):
            return head
    return None


def _check_inputs(
    sequences: Sequence[Sequence[int]], positions: Sequence[Sequence[int]], targets: Sequence[Sequence[int]] | None,
    max_length: int,
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    if len(sequences) != len(positions):
        raise InvalidParameterError("positions", f"{len(positions)} lists", f"one list per sequence ({len(sequences)})")
    if targets is not None and len(targets) != len(sequences):
        raise InvalidParameterError("targets", f"{len(targets)} lists", f"one list per sequence ({len(sequences)})")
    seqs, poss, tgts = [], [], []
    for k, (seq, pos) in enumerate(zip(sequences, positions)):
        ids = np.asarray(seq, dtype=np.int64).reshape(-1)
        where = np.asarray(pos, dtype=np.int64).reshape(-1)
        if len(ids) > max_length:
            raise InvalidParameterError(
                f"sequences[{k}]", f"{len(ids)} tokens", f"at most the model's {max_length} tokens (special tokens included)"
            )
        if where.size and (where.min() < 0 or where.max() >= len(ids)):
            raise InvalidParameterError(f"positions[{k}]", where.tolist(), f"indices in [0, {len(ids)})")
        wanted = ids[where] if targets is None else np.asarray(targets[k], dtype=np.int64).reshape(-1)
        if wanted.shape != where.shape:
            raise InvalidParameterError(f"targets[{k}]", wanted.tolist(), f"{where.size} token ids, one per position")
        seqs.append(ids)
        poss.append(where)
        tgts.append(wanted)
    return seqs, poss, tgts


def _copy_batches(lengths: list[int], positions: list[np.ndarray], batch_tokens: int) -> Iterator[np.ndarray]:
    """Batches of masked copies as rows ``(sequence, slot)``; one exact length per batch."""
    by_length: dict[int, list[tuple[int, int]]] = {}
    for seq, where in enumerate(positions):
        for slot in range(where.size):
            by_length.setdefault(lengths[seq], []).append((seq, slot))
    for length in sorted(by_length):
        copies = np.asarray(by_length[length], dtype=np.int64).reshape(-1, 2)
        per_batch = max(1, batch_tokens // max(length, 1))
        for start in range(0, len(copies), per_batch):
            yield copies[start : start + per_batch]


def _batch_logits(encoder: Any, head: Any, input_ids: torch.Tensor, where: torch.Tensor) -> torch.Tensor:
    """Masked-LM logits at ``where`` for each row of ``input_ids`` (at least float32)."""
    rows = torch.arange(input_ids.shape[0], device=input_ids.device)
    if head is not None:
        # Only the masked row of each copy goes through the vocabulary projection.
        states = encoder.model(input_ids=input_ids).last_hidden_state[rows, where]
        logits = head(states)
    else:
        logits = encoder.mlm_model(input_ids=input_ids).logits[rows, where]
    return logits.to(torch.promote_types(logits.dtype, torch.float32))


def _batch_log_probs(encoder: Any, head: Any, input_ids: torch.Tensor, where: torch.Tensor, wanted: torch.Tensor,
                     prefixes: list[torch.Tensor] | None = None) -> np.ndarray:
    """Log p(wanted | masked copy) at ``where`` for each row of ``input_ids`` (float64); with
    ``prefixes`` (token ids), self-debiased (Schick et al. 2021, :func:`debias.self_debiased_log_probs`):
    each prefix is put after the first (special) token, as in the debiasing survey's public code.
    """
    logits = _batch_logits(encoder, head, input_ids, where)
    if prefixes is None:
        log_probs = torch.log_softmax(logits, dim=-1)
    else:
        prefixed = []
        for prefix in prefixes:
            ids = torch.cat([input_ids[:, :1], prefix.expand(input_ids.shape[0], -1), input_ids[:, 1:]], dim=1)
            prefixed.append(_batch_logits(encoder, head, ids, where + prefix.shape[0]))
        settings = encoder.self_debias
        log_probs = self_debiased_log_probs(logits, prefixed, decay_constant=settings["decay_constant"],
                                            epsilon=settings["epsilon"])
    return log_probs.gather(1, wanted.unsqueeze(1)).squeeze(1).double().cpu().numpy()


def _self_debias_prefixes(encoder: Any) -> list[torch.Tensor] | None:
    """Token ids of the debiasing prefixes of a self-debiased encoder, or ``None``."""
    settings = getattr(encoder, "self_debias", None)
    if not settings:
        return None
    return [
        torch.tensor(encoder.tokenizer(p.strip(), add_special_tokens=False)["input_ids"], dtype=torch.long,
                     device=encoder.device)
        for p in settings["prefixes"]
    ]


def masked_token_log_probs(
    encoder: Any,
    sequences: Sequence[Sequence[int]],
    positions: Sequence[Sequence[int]],
    *,
    targets: Sequence[Sequence[int]] | None = None,
    batch_tokens: int | None = None,
    progress: bool = False,
    what: str = "masked-token scoring",
) -> list[np.ndarray]:
    r"""Log-probability of chosen tokens, each masked in turn, for many sequences at once.

    For sequence :math:`s` and each chosen position :math:`i`, the copy :math:`s_{\setminus i}` (token
    :math:`i` replaced by the mask token, every other token kept) is scored:

    .. math:: \ell_i = \log p_\theta(t_i \mid s_{\setminus i})

    with :math:`t_i` the original token (or ``targets``). Summed over every non-special token this
    is the pseudo-log-likelihood of Salazar et al. (2020); CrowS-Pairs (Nangia et al. 2020) and
    StereoSet (Nadeem et al. 2021) score subsets. Copies of one length are batched together
    within ``batch_tokens`` tokens, without padding; the run is inside :meth:`probekit.Encoder.inference`,
    so an output projection of the encoder applies to what the head reads. For a
    :class:`probekit.encoders.SelfDebiasedEncoder` (``debias.SelfDebias``) each copy is also scored
    with every debiasing prefix and :math:`\ell_i = \log \tilde p_\theta(t_i \mid s_{\setminus i})`, the
    self-debiased probability (Schick et al. 2021, :func:`debias.self_debiased_log_probs`).

    Parameters
    ----------
    encoder : Encoder
        With a masked-LM head (``encoder.mlm_model``).
    sequences : sequence of sequence of int
        Token ids, special tokens included (as the tokenizer encodes a sentence).
    positions : sequence of sequence of int
        For each sequence, the positions to mask one at a time (may be empty).
    targets : sequence of sequence of int, optional
        Token ids whose log-probability is read at each position; default the sequence's own
        tokens. Useful when a position already holds the mask token.
    batch_tokens : int, optional
        Tokens per forward pass; default 4096 on CPU, 16384 on GPU.
    progress : bool
        Show a tqdm progress bar over copies.
    what : str
        Name of the computation in the error raised without a masked-LM head.

    Returns
    -------
    list of ndarray of float64
        One array per sequence, aligned with its ``positions``.

    Raises
    ------
    MissingMLMHeadError
        The encoder has no masked-LM head or its tokenizer no mask token.
    """
    require_mlm_head(encoder, what)
    prefixes = _self_debias_prefixes(encoder)  # a SelfDebiasedEncoder: room for the longest prefix
    reserve = max((p.shape[0] for p in prefixes), default=0) if prefixes else 0
    seqs, poss, tgts = _check_inputs(sequences, positions, targets, encoder.max_length - reserve)
    budget = batch_tokens or default_batch_tokens(encoder.device)
    if budget < 1:
        raise InvalidParameterError("batch_tokens", batch_tokens, "a positive number of tokens")
    out = [np.full(p.size, np.nan) for p in poss]
    mask_id = int(encoder.tokenizer.mask_token_id)
    head = _token_head(encoder.mlm_model)
    total = sum(p.size for p in poss)
    bar = None
    if progress and total:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc=f"{what}: masked copies", unit="copy", leave=False)
    try:
        with encoder.inference():
            for copies in _copy_batches([len(s) for s in seqs], poss, budget):
                ids = np.stack([seqs[s] for s, _ in copies])
                where = np.asarray([poss[s][k] for s, k in copies], dtype=np.int64)
                wanted = np.asarray([tgts[s][k] for s, k in copies], dtype=np.int64)
                ids[np.arange(len(copies)), where] = mask_id
                values = _batch_log_probs(
                    encoder, head, torch.from_numpy(ids).to(encoder.device),
                    torch.from_numpy(where).to(encoder.device), torch.from_numpy(wanted).to(encoder.device),
                    prefixes,
                )
                for (s, k), value in zip(copies, values):
                    out[s][k] = value
                if bar is not None:
                    bar.update(len(copies))
    finally:
        if bar is not None:
            bar.close()
    return out


def pseudo_log_likelihood(
    encoder: Any, sentences: Sequence[str], *, batch_tokens: int | None = None, progress: bool = False
) -> np.ndarray:
    r"""Pseudo-log-likelihood of each sentence (Salazar et al. 2020).

    .. math:: \mathrm{PLL}(s) = \sum_{i \notin \text{special}} \log p_\theta(t_i \mid s_{\setminus i})

    Parameters
    ----------
    encoder : Encoder
        With a masked-LM head.
    sentences : sequence of str
    batch_tokens, progress
        As in :func:`masked_token_log_probs`.

    Returns
    -------
    ndarray of float64, shape (n_sentences,)
    """
    if isinstance(sentences, str):
        raise InvalidParameterError("sentences", sentences, "a sequence of strings, not one string")
    require_mlm_head(encoder, "pseudo-log-likelihood")
    encoded = encoder.tokenizer(list(sentences), return_special_tokens_mask=True, verbose=False)
    positions = [np.flatnonzero(np.asarray(m) == 0) for m in encoded["special_tokens_mask"]]
    scores = masked_token_log_probs(
        encoder, encoded["input_ids"], positions, batch_tokens=batch_tokens, progress=progress, what="pseudo-log-likelihood"
    )
    return np.asarray([float(s.sum()) for s in scores])
