"""Swap and scrub over files (txt, csv, tsv, jsonl, parquet), Hugging Face datasets and the
``probekit swap`` / ``probekit scrub`` commands."""

from __future__ import annotations

import csv
import json

import pytest

from debias import scrub_dataset, scrub_file, scrub_texts, swap_dataset, swap_file, swap_texts
from probekit.cli.main import main
from probekit.errors import InputFileError, InvalidParameterError

TEXTS = [
    "She said her brother's friend, Mr. Smith, saw her.",
    "Nothing gendered, only a comma, and \"quotes\".",
    "The book is his; Mary and John's mother agreed.",
    "",
    "A multi-line-free text with a tab\there.",
]


def _read_csv(path, delimiter=","):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter=delimiter))


def _write_csv(path, rows, delimiter=","):
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), delimiter=delimiter)
        writer.writeheader()
        writer.writerows(rows)


def test_txt_round_trip_keeps_line_endings(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes("She left.\r\nHe stayed.\n\nno newline at the end: her".encode("utf-8"))
    result = swap_file(source, tmp_path / "out.txt", names="builtin")
    assert (tmp_path / "out.txt").read_bytes() == "He left.\r\nShe stayed.\n\nno newline at the end: him".encode("utf-8")
    assert (result.n_texts, result.n_changed, result.format, result.column) == (4, 3, "txt", None)
    assert result.intervention["name_list"]["label"] == "builtin"


@pytest.mark.parametrize("delimiter,suffix", [(",", ".csv"), ("\t", ".tsv")])
def test_csv_round_trip_keeps_other_columns(tmp_path, delimiter, suffix):
    rows = [{"id": str(i), "text": t, "note": f"a{delimiter}b \"{i}\""} for i, t in enumerate(TEXTS)]
    source, out = tmp_path / f"in{suffix}", tmp_path / f"out{suffix}"
    _write_csv(source, rows, delimiter)
    result = swap_file(source, out, names="builtin")
    written = _read_csv(out, delimiter)
    assert [r["text"] for r in written] == swap_texts(TEXTS, names="builtin")
    assert [(r["id"], r["note"]) for r in written] == [(r["id"], r["note"]) for r in rows]
    assert list(written[0]) == ["id", "text", "note"]
    assert result.n_texts == len(TEXTS) and result.n_changed == 2


def test_csv_output_column_keeps_the_original(tmp_path):
    rows = [{"text": t, "label": "1"} for t in TEXTS]
    _write_csv(tmp_path / "in.csv", rows)
    scrub_file(tmp_path / "in.csv", tmp_path / "out.csv", output_column="scrubbed", placeholder="_", names="builtin")
    written = _read_csv(tmp_path / "out.csv")
    assert [r["text"] for r in written] == TEXTS
    assert [r["scrubbed"] for r in written] == scrub_texts(TEXTS, placeholder="_", names="builtin")


def test_jsonl_round_trip_keeps_keys_order_and_nulls(tmp_path):
    source = tmp_path / "in.jsonl"
    records = [{"id": i, "text": t, "meta": {"x": [1, 2]}} for i, t in enumerate(TEXTS)] + [{"id": 99, "text": None, "meta": None}]
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    swap_file(source, tmp_path / "out.jsonl", names="builtin")
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["text"] for r in written] == swap_texts(TEXTS, names="builtin") + [None]
    assert [list(r) for r in written] == [["id", "text", "meta"]] * len(records)
    assert [r["meta"] for r in written] == [r["meta"] for r in records]


def test_parquet_round_trip(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({"text": TEXTS + [None], "label": list(range(len(TEXTS) + 1))})
    pq.write_table(table, tmp_path / "in.parquet")
    result = scrub_file(tmp_path / "in.parquet", tmp_path / "out.parquet", names="builtin")
    written = pq.read_table(tmp_path / "out.parquet")
    assert written.column("text").to_pylist() == scrub_texts(TEXTS, names="builtin") + [None]
    assert written.column("label").to_pylist() == list(range(len(TEXTS) + 1))
    assert written.schema == table.schema
    assert result.format == "parquet" and result.n_changed == 2


def test_output_may_replace_the_input(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("she\nhe\n", encoding="utf-8")
    swap_file(source, source, names="builtin")
    assert source.read_text(encoding="utf-8") == "he\nshe\n"


@pytest.mark.parametrize(
    "make,call,error,match",
    [
        (None, lambda p, o: swap_file(p / "missing.csv", o / "out.csv"), InputFileError, "missing.csv"),
        ("csv", lambda p, o: swap_file(p / "in.csv", o / "out.csv", column="body"), InputFileError, "'body'"),
        ("jsonl", lambda p, o: scrub_file(p / "in.jsonl", o / "out.jsonl", column="body"), InputFileError, "line 1.*'body'"),
        ("csv", lambda p, o: swap_file(p / "in.csv", o / "out.jsonl"), InvalidParameterError, "out"),
        ("md", lambda p, o: swap_file(p / "in.md", o / "out.md"), InvalidParameterError, "path"),
        ("txt", lambda p, o: swap_file(p / "in.txt", o / "out.txt", output_column="x"), InvalidParameterError, "output_column"),
        ("csv", lambda p, o: scrub_file(p / "in.csv", o / "out.csv", placeholder=1), InvalidParameterError, "placeholder"),
        ("csv", lambda p, o: swap_file(p / "in.csv", o / "out.csv", names="all"), InvalidParameterError, "names"),
        ("badjsonl", lambda p, o: swap_file(p / "in.jsonl", o / "out.jsonl"), InputFileError, "line 2"),
    ],
)
def test_bad_input_fails_clearly_and_writes_nothing(tmp_path, make, call, error, match):
    if make == "csv":
        _write_csv(tmp_path / "in.csv", [{"text": "she"}])
    elif make == "jsonl":
        (tmp_path / "in.jsonl").write_text('{"text": "she"}\n', encoding="utf-8")
    elif make == "badjsonl":
        (tmp_path / "in.jsonl").write_text('{"text": "she"}\n{"text": \n', encoding="utf-8")
    elif make in ("md", "txt"):
        (tmp_path / f"in.{make}").write_text("she\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(error, match=match):
        call(tmp_path, out)
    assert list(out.iterdir()) == []


# --- datasets ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dataset():
    datasets = pytest.importorskip("datasets")
    texts = TEXTS * 8
    return datasets.Dataset.from_dict({"text": texts, "label": list(range(len(texts)))})


@pytest.mark.parametrize("num_proc", [1, 2])
def test_swap_dataset_matches_swap_texts(dataset, num_proc):
    out = swap_dataset(dataset, names="builtin", num_proc=num_proc, batch_size=7)
    assert out["text"] == swap_texts(dataset["text"], names="builtin")
    assert out["label"] == dataset["label"]


@pytest.mark.parametrize("num_proc", [1, 2])
def test_scrub_dataset_output_column(dataset, num_proc):
    out = scrub_dataset(dataset, output_column="scrubbed", placeholder="_", names="builtin", num_proc=num_proc)
    assert out["text"] == dataset["text"]
    assert out["scrubbed"] == scrub_texts(dataset["text"], placeholder="_", names="builtin")


def test_dataset_dict_and_bad_column(dataset):
    datasets = pytest.importorskip("datasets")
    both = datasets.DatasetDict({"train": dataset, "test": dataset.select(range(3))})
    out = swap_dataset(both, names="builtin")
    assert out["test"]["text"] == swap_texts(dataset["text"][:3], names="builtin")
    with pytest.raises(InvalidParameterError, match="column"):
        swap_dataset(dataset, "body")


# --- CLI --------------------------------------------------------------------------------------

def test_cli_swap_and_scrub(tmp_path, capsys):
    rows = [{"id": str(i), "text": t} for i, t in enumerate(TEXTS)]
    _write_csv(tmp_path / "in.csv", rows)
    code = main(["swap", str(tmp_path / "in.csv"), "--column", "text", "--out", str(tmp_path / "out.csv"),
                 "--names", "builtin", "--report", str(tmp_path / "report.json"), "--no-progress"])
    assert code == 0
    assert [r["text"] for r in _read_csv(tmp_path / "out.csv")] == swap_texts(TEXTS, names="builtin")
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["intervention"]["name_list"]["label"] == "builtin"
    assert report["n_changed"] == 2 and report["provenance"]["probekit_version"]
    assert "2 of 5 texts changed" in capsys.readouterr().out

    code = main(["scrub", str(tmp_path / "in.csv"), "--out", str(tmp_path / "scrubbed.csv"), "--placeholder", "_", "--no-progress"])
    assert code == 0
    assert [r["text"] for r in _read_csv(tmp_path / "scrubbed.csv")] == scrub_texts(TEXTS, placeholder="_")


@pytest.mark.parametrize("command", ["swap", "scrub"])
def test_cli_missing_column_or_file_exits_2_and_writes_nothing(tmp_path, capsys, command):
    _write_csv(tmp_path / "in.csv", [{"body": "she"}])
    code = main([command, str(tmp_path / "in.csv"), "--column", "text", "--out", str(tmp_path / "out.csv"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "in.csv" in err and "'text'" in err and "Traceback" not in err
    assert not (tmp_path / "out.csv").exists()

    code = main([command, str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "out.jsonl"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "nope.jsonl" in err and err.count("\n") == 1
    assert not (tmp_path / "out.jsonl").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]
