"""analysis/diff_results.py: identical, within tolerance, different."""

import json

from analysis import diff_results


def write(tmp_path, name, doc):
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return str(p)


def test_identical_within_and_beyond_tolerance(tmp_path, capsys):
    a = write(tmp_path, "a.json", {"x": [1.0, 2], "s": "k", "settings": {"m": "exsim"}})
    same = write(tmp_path, "b.json", {"x": [1.0, 2], "s": "k", "settings": {"m": "simgrid"}})
    close = write(tmp_path, "c.json", {"x": [1.0 + 1e-12, 2], "s": "k", "settings": {"m": "exsim"}})
    far = write(tmp_path, "d.json", {"x": [1.1, 2], "s": "k", "settings": {"m": "exsim"}})
    assert diff_results.main([a, same, "--ignore", "settings.m"]) == 0
    assert capsys.readouterr().out.strip() == "identical"
    assert diff_results.main([a, same]) == 1  # the setting differs
    assert diff_results.main([a, close, "--rel-tol", "1e-9"]) == 0
    assert "within 1e-09" in capsys.readouterr().out
    assert diff_results.main([a, far, "--rel-tol", "1e-9"]) == 1
    assert "x[0]" in capsys.readouterr().out


def test_structure_and_bad_input(tmp_path, capsys):
    a = write(tmp_path, "a.json", {"x": [1, 2]})
    b = write(tmp_path, "b.json", {"x": [1]})
    assert diff_results.main([a, b]) == 1
    assert diff_results.main([a, str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err
