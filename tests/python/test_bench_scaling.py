"""analysis/bench_scaling.py: the scaling CSV becomes a plot; bad input is an error."""

from analysis import bench_scaling


def test_plot_and_bad_input(tmp_path, capsys):
    csv = tmp_path / "s.csv"
    csv.write_text("executors,network_model,rpcs,wall_s,rpcs_per_wall_s,peak_rss_mib\n"
                   "5,exsim,60995,0.22,276600,34\n10,exsim,127505,0.73,174821,36\n"
                   "5,simgrid,60995,0.36,168816,34\n")
    png = tmp_path / "s.png"
    assert bench_scaling.main([str(csv), str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    series = bench_scaling.read(csv)
    assert [p[0] for p in series["exsim"]] == [5, 10]
    bad = tmp_path / "bad.csv"
    bad.write_text("executors,model\n5,exsim\n")
    assert bench_scaling.main([str(bad), str(png)]) == 2
    assert "bad.csv" in capsys.readouterr().err
