"""Benchmark data from the hub or the web, without the network: the download functions are replaced
by local stand-ins (``datasets.load_dataset`` returning a local Dataset with the hub's row layout,
``urllib.request.urlopen`` serving local bytes); offline, every path fails with a clear error."""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request

import datasets
import pytest

from probekit.cli.main import main
from probekit.errors import InputFileError, InvalidParameterError
from probekit.intrinsic import (
    SEAT_RELEASE_TESTS,
    SEAT_RELEASE_URL,
    STEREOSET_HF_DATASET,
    fetch_seat_suite,
    read_crows_pairs,
    read_seat_suite,
    read_stereoset,
    resolve_seat_suite,
)
from tests.unit.test_crows_pairs import ROWS as CROWS_ROWS
from tests.unit.test_crows_pairs import _write_csv
from tests.unit.test_stereoset import CONTEXTS, LABELS
from tests.unit.test_stereoset import _write as _write_stereoset

GOLD_NAMES = ["anti-stereotype", "stereotype", "unrelated"]  # the hub's class-label order (labels add "related")


@pytest.fixture
def online(monkeypatch):
    """The offline switches off (the tests still reach no network: the download functions are stubbed)."""
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.setattr(datasets.config, name, False, raising=False)


def _hub_stereoset(class_labels=True):
    """A local Dataset laid out as the hub's ``McGill-NLP/stereoset`` ``intrasentence`` rows."""
    gold = datasets.ClassLabel(names=GOLD_NAMES) if class_labels else datasets.Value("string")
    features = datasets.Features({
        "id": datasets.Value("string"), "target": datasets.Value("string"), "bias_type": datasets.Value("string"),
        "context": datasets.Value("string"),
        "sentences": datasets.Sequence({
            "sentence": datasets.Value("string"), "id": datasets.Value("string"),
            "labels": datasets.Sequence({"label": datasets.ClassLabel(names=[*GOLD_NAMES, "related"]) if class_labels
                                         else datasets.Value("string"), "human_id": datasets.Value("string")}),
            "gold_label": gold,
        }),
    })
    rows = []
    for cid, target, domain, context, sentences in CONTEXTS:
        order = [2, 0, 1]  # the hub does not keep the fill-ins in label order
        rows.append({"id": cid, "target": target, "bias_type": domain, "context": context, "sentences": {
            "sentence": [sentences[k] for k in order], "id": [f"{cid}-{k}" for k in order],
            "labels": [{"label": [GOLD_NAMES.index(LABELS[k]) if class_labels else LABELS[k]], "human_id": ["h"]}
                       for k in order],
            "gold_label": [GOLD_NAMES.index(LABELS[k]) if class_labels else LABELS[k] for k in order],
        }})
    return datasets.Dataset.from_list(rows, features=features)


def _by_id(examples):
    return {e.id: (e.target, e.bias_type, e.context, sorted(e.sentences)) for e in examples}


@pytest.mark.parametrize("class_labels", [True, False])
def test_stereoset_hub_rows_equal_dev_json(online, monkeypatch, tmp_path, class_labels):
    calls = []

    def fake_load_dataset(name, config=None, split=None):
        calls.append((name, config, split))
        return _hub_stereoset(class_labels)

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    from_hub = read_stereoset(STEREOSET_HF_DATASET)
    from_file = read_stereoset(_write_stereoset(tmp_path / "dev.json"))
    assert calls == [("McGill-NLP/stereoset", "intrasentence", "validation")]
    assert _by_id(from_hub) == _by_id(from_file)
    assert [e.sentence("stereotype") for e in from_hub] == [e.sentence("stereotype") for e in from_file]
    assert [e.id for e in read_stereoset(STEREOSET_HF_DATASET, domains=["gender"])] == ["c2"]


def test_stereoset_hub_offline_and_unknown(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InputFileError, match=r"data='McGill-NLP/stereoset'.*offline.*local StereoSet file"):
        read_stereoset(STEREOSET_HF_DATASET)
    with pytest.raises(InputFileError, match="no StereoSet file .*McGill-NLP/stereoset"):
        read_stereoset(tmp_path / "missing.json")


def test_stereoset_cli_hub_id(online, monkeypatch, tiny_checkpoints, tmp_path):
    monkeypatch.setattr(datasets, "load_dataset", lambda name, config=None, split=None: _hub_stereoset())
    code = main(["stereoset", "--model", str(tiny_checkpoints["mlm"]), "--data", STEREOSET_HF_DATASET, "--out",
                 str(tmp_path / "o"), "--device", "cpu", "--no-progress", "--n-resamples", "0"])
    assert code == 0
    saved = json.loads((tmp_path / "o" / "results.json").read_text())
    assert saved["overall"]["n_contexts"] == len(CONTEXTS) and saved["provenance"]["parameters"]["data"] == STEREOSET_HF_DATASET


def test_crows_pairs_hub_through_the_same_helper(online, monkeypatch, tmp_path):
    directions = datasets.ClassLabel(names=["stereo", "antistereo"])
    types = sorted({row[3] for row in CROWS_ROWS})
    hub = datasets.Dataset.from_list(
        [{"sent_more": m, "sent_less": s, "stereo_antistereo": directions.str2int(d), "bias_type": types.index(b)}
         for m, s, d, b in CROWS_ROWS],
        features=datasets.Features({"sent_more": datasets.Value("string"), "sent_less": datasets.Value("string"),
                                    "stereo_antistereo": directions, "bias_type": datasets.ClassLabel(names=types)}),
    )
    monkeypatch.setattr(datasets, "load_dataset", lambda name, config=None, split=None: hub)
    for name in ("crows_pairs", "nyu-mll/crows_pairs"):
        assert read_crows_pairs(name) == read_crows_pairs(_write_csv(tmp_path / "c.csv"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InputFileError, match="offline"):
        read_crows_pairs("crows_pairs")


def _serve(files, requested):
    def fake_urlopen(url, timeout=None):
        requested.append(url)
        name = url.rsplit("/", 1)[-1]
        if name not in files:
            raise urllib.error.HTTPError(url, 404, "not found", None, None)
        return io.BytesIO(files[name])

    return fake_urlopen


def _tiny_release():
    roles = {"targ1": ["rose", "tulip"], "targ2": ["ant", "wasp"], "attr1": ["love", "peace"], "attr2": ["hate", "war"]}
    payload = json.dumps({k: {"category": k, "examples": v} for k, v in roles.items()}).encode()
    return {f"{name}.jsonl": payload for name in SEAT_RELEASE_TESTS}


def test_seat_release_fetched_once_into_the_cache(online, monkeypatch, tmp_path):
    requested = []
    monkeypatch.setattr(urllib.request, "urlopen", _serve(_tiny_release(), requested))
    monkeypatch.delenv("PROBEKIT_SEAT_SUITE", raising=False)
    monkeypatch.setenv("PROBEKIT_CACHE", str(tmp_path / "cache"))
    folder = resolve_seat_suite("all")
    assert folder == tmp_path / "cache" / "seat_suite"
    assert sorted(requested) == sorted(SEAT_RELEASE_URL.format(name=n) for n in SEAT_RELEASE_TESTS)
    assert requested[0].startswith("https://raw.githubusercontent.com/W4ngatang/sent-bias/")
    assert sorted(t.name for t in read_seat_suite(folder)) == sorted(SEAT_RELEASE_TESTS)
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary file left
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # cached: no download needed, works offline
    requested.clear()
    assert fetch_seat_suite() == folder and requested == []


def test_seat_release_fetch_reads_the_published_files(online, monkeypatch, tmp_path, shared_reference):
    local = shared_reference / "seat_suite"
    if not local.is_dir():
        pytest.skip("../shared/reference/seat_suite is not present")
    files = {p.name: p.read_bytes() for p in local.glob("*.jsonl")}
    monkeypatch.setattr(urllib.request, "urlopen", _serve(files, []))
    fetched = read_seat_suite(fetch_seat_suite(tmp_path / "seat"))
    assert fetched == read_seat_suite(local)


def test_seat_release_offline_or_no_network_is_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("PROBEKIT_SEAT_SUITE", raising=False)
    monkeypatch.setenv("PROBEKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InvalidParameterError, match=r"suite='all'.*local directory.*seat_suite.*offline"):
        resolve_seat_suite("all")
    code = main(["seat", "--suite", "all", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "--suite" in err and "PROBEKIT_SEAT_SUITE" in err
    assert not (tmp_path / "cache" / "seat_suite").exists()


def test_seat_release_network_failure(online, monkeypatch, tmp_path):
    def unreachable(url, timeout=None):
        raise urllib.error.URLError("Name or service not known")

    monkeypatch.setattr(urllib.request, "urlopen", unreachable)
    with pytest.raises(InvalidParameterError, match=r"suite='all'.*no network"):
        fetch_seat_suite(tmp_path / "seat")
