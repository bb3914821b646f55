"""``twig script`` and scene scripts from the command line."""

from twig.cli import main


def test_twig_script_runs_a_script_on_a_scene(tmp_path, capsys):
    script = tmp_path / "look.twig"
    script.write_text("world: wait 0.5\nball: where\n- ball: bounce\nworld: objects\n")
    assert main(["script", str(script), "--scene", "marionette"]) == 0
    out = capsys.readouterr().out
    assert "t=0.500 ball: where -> [0.0, 0.11, 3.0]" in out
    assert "failed (going on)" in out and "unknown command 'bounce'" in out
    assert f"{script}: finished at t=0.500 s" in out


def test_twig_script_reports_a_failure_and_a_parse_error(tmp_path, capsys):
    script = tmp_path / "bad.twig"
    script.write_text("world: wait 0.1\nghost: where\n")
    assert main(["script", str(script)]) == 1
    assert f"stopped: {script}:2: ghost: no body called 'ghost'" in capsys.readouterr().out
    script.write_text("world: wait 0.1\nworld wait\n")
    assert main(["script", str(script)]) == 2
    assert f"{script}:2:7: expected ':' after 'world'" in capsys.readouterr().err


def test_twig_run_prints_the_scene_script_as_it_runs(capsys):
    assert main(["run", "marionette"]) == 0
    out = capsys.readouterr().out
    assert "puppet: where r_hand -> [0.55, 1.75, 0.25]" in out
    assert 'puppet: touching within=1 -> {"ball":' in out
    assert "script finished" in out
