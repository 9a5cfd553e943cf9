"""Record archives: a fresh clone (no records, only the committed archive) recomputes exactly the
records that a change of code made stale, and ``sskernels table`` renders from the archive."""

import shutil

from sskernels import provenance as prov
from sskernels.experiment import runner
from sskernels.experiment.archive import archive_path, write_archive
from sskernels.experiment.collect import load_records
from sskernels.experiment.runner import run_spec
from sskernels.spec import load_spec

SPEC = """\
name: wine_archive
dataset: sklearn-wine
graph: {{k: 6}}
splits: {{n_splits: 3, n_labeled: 10, seed: 0}}
methods: [harmonic, {{name: tsk, label: TSK, params: {{n_components: 8, beta: 10}}}}]
output: {output}
"""


def spec_counting_tasks(tmp_path, monkeypatch):
    path = tmp_path / "spec.yaml"
    out = tmp_path / "out"
    path.write_text(SPEC.format(output=out))
    ran = []
    real = runner.run_record
    monkeypatch.setattr(runner, "run_record", lambda t, prep: ran.append(t) or real(t, prep))
    return path, out, ran


def fresh_clone(out):
    """What a clone has: the archive beside the output folder, nothing inside it."""
    shutil.rmtree(out)


def test_a_fresh_clone_takes_every_current_record_from_the_archive(tmp_path, monkeypatch):
    path, out, ran = spec_counting_tasks(tmp_path, monkeypatch)
    first = run_spec(load_spec(path), progress=False)
    assert len(ran) == 6
    assert write_archive(out) == 6
    data = archive_path(out).read_bytes()
    assert write_archive(out) == 6 and archive_path(out).read_bytes() == data  # reproducible
    fresh_clone(out)
    again = run_spec(load_spec(path), progress=False)
    assert len(ran) == 6  # nothing computed
    assert again["value"].tolist() == first["value"].tolist()
    assert len(list(out.glob("records/*/*/split_*.json"))) == 6
    assert (out / "graph_seconds.json").is_file()


def test_a_change_of_one_learner_recomputes_only_its_records_from_the_archive(
    tmp_path, monkeypatch
):
    path, out, ran = spec_counting_tasks(tmp_path, monkeypatch)
    first = run_spec(load_spec(path), progress=False)
    write_archive(out)
    fresh_clone(out)
    real = prov.module_digest
    monkeypatch.setattr(
        prov,
        "module_digest",
        lambda name, root=None: (
            ("edited" if name == "sskernels.learners.spectral" else "") + real(name, root)
        ),
    )
    again = run_spec(load_spec(path), progress=False)
    spec = load_spec(path)
    assert sorted(ran[6:]) == [(1, 0, s) for s in range(3)]  # TSK's three splits only
    assert again["value"].tolist() == first["value"].tolist()
    assert {m.label for m in spec.methods} == {"harmonic", "TSK"}


def test_table_renders_from_the_archive_alone(tmp_path, monkeypatch):
    path, out, ran = spec_counting_tasks(tmp_path, monkeypatch)
    first = run_spec(load_spec(path), progress=False)
    write_archive(out)
    fresh_clone(out)
    df = load_records(load_spec(path))
    assert sorted(df["value"].tolist()) == sorted(first["value"].tolist())
    assert len(ran) == 6


def test_a_folder_the_table_restored_on_a_fresh_clone_can_be_run_into(tmp_path, monkeypatch):
    """``sskernels table`` before ``sskernels run`` on a fresh clone whose archive is stale
    (the code changed): the folder the run files were restored into is marked as sskernels'
    own, so the run does not refuse it as a user's folder."""
    import pytest

    from sskernels.errors import UserError
    from sskernels.experiment.records import claim_output

    path, out, ran = spec_counting_tasks(tmp_path, monkeypatch)
    run_spec(load_spec(path), progress=False)
    write_archive(out)
    fresh_clone(out)
    real = prov.module_digest
    monkeypatch.setattr(prov, "module_digest", lambda name, root=None: "edited" + real(name, root))
    with pytest.raises(UserError, match="no records"):
        load_records(load_spec(path))  # the table: restores the run files only
    assert (out / "data_fingerprint.json").is_file() and not (out / "records").exists()
    claim_output(load_spec(path))  # refused the folder before the marker
    run_spec(load_spec(path), progress=False)
    assert len(ran) == 12  # every record recomputed


def _oracle_record(split, params):
    return {
        "key": "k",
        "method": "oracle row",
        "setting": "10 labeled",
        "split": split,
        "seconds": 1.0,
        "oracle": {"params": params, "accuracy": [50.0 + split] * len(params), "best_index": 0},
    }


def test_a_long_candidate_list_is_stored_once_and_every_record_reads_back_as_written(tmp_path):
    """The oracle's candidate list, the same on every split, is one line of the archive (a
    grid of 6,300 candidates is 0.9 MB of JSON a split); the records read back equal to their
    files, a short list stays in its record, and the bytes are reproducible."""
    import gzip
    import json

    from sskernels.experiment.archive import SHARED_PARAMS_BYTES, ArchivedRecords

    long = [{"C": c, "kernel_learner__theta": t} for c in range(60) for t in (0.1, 0.5)]
    short = [{"C": 1.0}, {"C": 10.0}]
    assert len(json.dumps(long)) >= SHARED_PARAMS_BYTES > len(json.dumps(short))
    out = tmp_path / "run"
    written = {}
    for label, params in (("long", long), ("short", short)):
        for split in range(3):
            rec = _oracle_record(split, params)
            rec["key"], rec["method"] = label, label
            path = out / "records" / label / "10_labeled" / f"split_{split:03d}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(rec))
            written[(label, split)] = rec
    assert write_archive(out) == 6
    data = archive_path(out).read_bytes()
    lines = gzip.decompress(data).decode().splitlines()
    assert sum('"kernel_learner__theta"' in line for line in lines) == 1  # the list, once
    assert sum('"C":10.0' in line for line in lines) == 3  # the short list in each record
    archived = ArchivedRecords(out)
    for (label, split), rec in written.items():
        assert archived.get(label, "10 labeled", split) == rec
    assert write_archive(out) == 6 and archive_path(out).read_bytes() == data


def test_an_archive_whose_shared_list_is_missing_is_no_archive(tmp_path):
    """A record naming a candidate list the archive lacks (a cut or edited archive) makes the
    archive unreadable, as a corrupt one: no record is taken from it."""
    import gzip
    import json

    from sskernels.experiment.archive import ArchivedRecords

    out = tmp_path / "run"
    rec = _oracle_record(0, [])
    rec["oracle"] = {"params_ref": "0123456789abcdef", "accuracy": [], "best_index": 0}
    archive_path(out).write_bytes(gzip.compress((json.dumps(rec) + "\n").encode(), mtime=0))
    assert ArchivedRecords(out).get("k", "10 labeled", 0) is None


def test_an_archive_whose_shared_list_was_edited_is_no_archive(tmp_path):
    """A shared candidate list whose content no longer has the digest that names it (edited
    after it was written) would give every record's selection wrong candidates: the archive is
    not read."""
    import gzip
    import json

    from sskernels.experiment.archive import SHARED_PARAMS_BYTES, ArchivedRecords

    out = tmp_path / "run"
    params = [{"C": float(c)} for c in range(SHARED_PARAMS_BYTES // 8)]
    path = out / "records" / "m" / "10_labeled" / "split_000.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(_oracle_record(0, params)))
    write_archive(out)
    assert ArchivedRecords(out).get("k", "10 labeled", 0)["oracle"]["params"] == params
    text = gzip.decompress(archive_path(out).read_bytes()).decode()
    edited = text.replace('{"C":1.0}', '{"C":1.5}', 1)
    assert edited != text
    archive_path(out).write_bytes(gzip.compress(edited.encode(), mtime=0))
    assert ArchivedRecords(out).get("k", "10 labeled", 0) is None
