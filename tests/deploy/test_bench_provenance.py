"""`make bench --only X` re-measures X and keeps every other section with the machine and commit that measured it
(issue 27: it rewrote the provenance of sections it did not measure)."""

import json

import bench.__main__ as bench


def test_only_a_section_it_measures_takes_this_run_s_provenance(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "HERE", tmp_path)
    old = {"python": "3.11.7", "machine": "x86_64", "cpus": 2, "code": "aaaaaaa"}
    (tmp_path / "results.json").write_text(json.dumps({"meta": old, "world": {"mean": 1.0}, "llm": []}))
    monkeypatch.setattr(bench, "measure", lambda section, quick: [{"workload": "gateway", "error_rate": 0.0,
                                                                  "share_of_limit": 1.0}])
    monkeypatch.setattr(bench, "render", lambda section, result: ["", f"## {section}", "", "body"])
    monkeypatch.setattr("warehouse.provenance.code_version", lambda: "bbbbbbb")
    bench.main(["--only", "llm"])
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["provenance"]["world"]["code"] == "aaaaaaa"  # kept: --only llm did not measure it
    assert results["provenance"]["llm"]["code"] == "bbbbbbb" and results["meta"]["code"] == "bbbbbbb"
    md = (tmp_path / "results.md").read_text()
    world = md.split("## world")[1].split("##")[0]
    llm = md.split("## llm")[1].split("##")[0]
    assert "'code': 'aaaaaaa'" in world and "'code': 'bbbbbbb'" in llm
