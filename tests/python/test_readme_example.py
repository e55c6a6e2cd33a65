# The README's Python kernel, as a user copies it: it runs, matches numpy (its own assertion), and
# writes the trace and the program file it says it writes.
import json
import re

from conftest import SOURCE_DIR


def readme_kernel():
    text = (SOURCE_DIR / "README.md").read_text()
    section = text[text.index("### Your own kernel from Python"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_kernel_runs_and_matches_numpy(instance, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(readme_kernel(), "README.md", "exec"), {})
    assert "latency device" in capsys.readouterr().out
    assert json.loads((tmp_path / "kernel.json").read_text())["traceEvents"]
    assert (tmp_path / "kernel.bin").stat().st_size > 0
