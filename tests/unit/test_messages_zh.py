"""course.py's learner messages under --zh: in Chinese, from the interface catalog that the checkers use
(read with the standard library's gettext, as course.py reads it before .venv exists), still one line each."""

import pytest

from tools import bootstrap, commands
from utils import language


@pytest.fixture(autouse=True)
def english_afterwards():
    """--zh switches this process to Chinese: the tests after these must find it English again."""
    yield
    language.use("en")


def _one_line(text: str) -> str:
    assert len(text.strip().splitlines()) == 1, text
    return text.strip()


def test_a_notebook_that_does_not_exist_is_one_chinese_line(capsys):
    with pytest.raises(SystemExit) as stop:
        bootstrap.main(["run", "--zh", "12"])
    line = _one_line(capsys.readouterr().err)
    assert stop.value.code == 2 and line.startswith(f"{commands.PROG} run：没有笔记本 12，笔记本的编号是 0 到 9。")
    assert line.endswith("（见 --help）")


def test_a_lab_typo_gets_did_you_mean_in_chinese(monkeypatch, capsys):
    from jupyterlab.labapp import LabApp

    monkeypatch.setattr(LabApp, "launch_instance", lambda *args, **kwargs: pytest.fail("JupyterLab was started"))
    assert commands.main(["lab", "--zh", "--portt", "8899"]) == 2
    assert _one_line(capsys.readouterr().err) == (f"{commands.PROG} lab: 未知选项 --portt，你是想输入 --port 吗？"
                                                  f"（`{commands.PROG} lab --help` 会列出 JupyterLab 的选项）")


def test_practice_says_what_it_wrote_in_chinese(tmp_path, capsys):
    assert commands.main(["practice", "--zh", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "共 10 份练习版，已清除输出并去掉参考答案"


def test_the_bootstraps_messages_come_from_the_same_catalog():
    language.use("zh")
    assert bootstrap.build_note("2.13.0+cpu", "linux", {}).startswith("course.py：没有找到 NVIDIA 驱动")
    assert bootstrap.first_install_notice("uv", "linux").startswith("正在把课程安装到 .venv")
    language.use("en")
    assert bootstrap.first_install_notice("uv", "linux").startswith("Installing the course into .venv")
