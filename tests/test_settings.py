"""Settings problems are one line naming the variable and what it may be; `.env` is shared with other tools."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from papertalk.errors import ConfigurationError
from papertalk.settings import Settings, ensure_data_dir
from tests.helpers.cli import one_error_line, run_cli

LLM_FIELDS = "BACKEND, MODEL, API_KEY, BASE_URL, TIMEOUT_S, ANSWER_TIMEOUT_S, MAX_RETRIES, TEMPERATURE, MAX_TOKENS"


def _error(monkeypatch: pytest.MonkeyPatch, **env: str) -> str:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError) as caught:
        Settings()
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"PAPERTALK_LLM__BACKEND": "foo"},
            "PAPERTALK_LLM__BACKEND='foo' is not allowed: use one of extractive, openai",
        ),
        (
            {"PAPERTALK_RETRIEVAL__TOP_K": "0"},
            "PAPERTALK_RETRIEVAL__TOP_K='0' is not allowed: use a whole number from 1 to 50",
        ),
        ({"PAPERTALK_LLM__TIMEOUT_S": "-1"}, "PAPERTALK_LLM__TIMEOUT_S='-1' is not allowed: use a number > 0"),
        ({"PAPERTALK_CHROMA__SSL": "maybe"}, "PAPERTALK_CHROMA__SSL='maybe' is not allowed: use true or false"),
        (
            {"PAPERTALK_EMBEDDING__MAX_RETRIES": "many"},
            "PAPERTALK_EMBEDDING__MAX_RETRIES='many' is not allowed: use a whole number from 0 to 10",
        ),
        (
            {"PAPERTALK_LLM__BACKEN": "openai"},
            f"PAPERTALK_LLM__BACKEN is not a papertalk setting: did you mean PAPERTALK_LLM__BACKEND? "
            f"(the LLM settings are {LLM_FIELDS})",
        ),
        (
            {"PAPERTALK_LLM": "openai"},
            "PAPERTALK_LLM is not a JSON object: set the group's settings one by one instead, "
            "e.g. PAPERTALK_LLM__BACKEND",
        ),
    ],
)
def test_a_bad_variable_is_one_line_naming_it_and_what_it_may_be(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    assert _error(monkeypatch, **env) == message


def test_an_unknown_name_without_a_close_match_lists_what_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    message = _error(monkeypatch, PAPERTALK_WIBBLEQUUX="1")
    assert message.startswith("PAPERTALK_WIBBLEQUUX is not a papertalk setting: use PAPERTALK_DATA_DIR, ")
    assert message.endswith(
        "or PAPERTALK_<GROUP>__<NAME> with GROUP one of "
        "ANSWER, API, ARXIV, CATALOG, CHROMA, CHUNKING, EMBEDDING, LLM, PDF, RETRIEVAL"
    )


def test_several_problems_are_all_named_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    message = _error(monkeypatch, PAPERTALK_RETRIEVAL__TOP_K="0", PAPERTALK_LLM__BACKEND="foo")
    assert "PAPERTALK_RETRIEVAL__TOP_K='0'" in message and "PAPERTALK_LLM__BACKEND='foo'" in message


def test_the_benchmarks_variable_is_not_a_misspelt_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERTALK_SHARED", "/somewhere")
    assert Settings().llm.backend == "extractive"


def test_the_test_script_s_worker_count_is_not_a_misspelt_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERTALK_TEST_WORKERS", "0")  # scripts/test.sh documents it; its subprocesses inherit it
    assert Settings().llm.backend == "extractive"


def test_dotenv_shared_with_other_tools_and_openai_names_honoured(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "# shared with other tools\n"
        "OPENAI_API_KEY=sk-from-dotenv\n"
        "OPENAI_BASE_URL=http://127.0.0.1:9/v1\n"
        "DATABASE_URL=postgres://somewhere\n"
        "export OTHER_TOOL_DEBUG=1\n"
        "PAPERTALK_LLM__MODEL='qwen3:8b'\n"
    )
    settings = Settings()
    assert settings.llm_api_key() == "sk-from-dotenv"
    assert settings.llm_base_url() == "http://127.0.0.1:9/v1"
    assert settings.llm.model == "qwen3:8b"
    assert "sk-from-dotenv" not in repr(settings) and "openai_api_key" not in settings.model_dump()


def test_environment_wins_over_dotenv_and_papertalk_names_win_over_openai_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-from-dotenv\nOPENAI_BASE_URL=http://dotenv/v1\n")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    monkeypatch.setenv("PAPERTALK_LLM__BASE_URL", "http://papertalk/v1")
    settings = Settings()
    assert settings.llm_api_key() == "sk-from-env"
    assert settings.llm_base_url() == "http://papertalk/v1"


@pytest.mark.parametrize(
    ("dotenv", "message"),
    [
        (
            "OPENAI_API_KEY=x\nPAPERTALK_LLM__BACKEND=gpt\n",
            "PAPERTALK_LLM__BACKEND='gpt' (in .env) is not allowed: use one of extractive, openai",
        ),
        (
            "PAPERTALK_LLM__MODL=x\n",
            f"PAPERTALK_LLM__MODL (in .env) is not a papertalk setting: did you mean PAPERTALK_LLM__MODEL? "
            f"(the LLM settings are {LLM_FIELDS})",
        ),
        (
            "OPENAI_API_KEY=x\nPAPERTALK_LLM__API_KEY='sk-secret\n",
            ".env line 2 (PAPERTALK_LLM__API_KEY) is not NAME=value (an unclosed quote?): fix or remove it",
        ),
        ("this line is not a setting\n", ".env line 1 is not NAME=value (an unclosed quote?): fix or remove it"),
    ],
)
def test_a_bad_dotenv_line_is_one_line_naming_it(tmp_path: Path, dotenv: str, message: str) -> None:
    (tmp_path / ".env").write_text(dotenv)
    with pytest.raises(ConfigurationError) as caught:
        Settings()
    assert str(caught.value) == message
    assert "sk-secret" not in str(caught.value)


def test_a_data_dir_that_cannot_hold_the_store_is_one_clear_error(tmp_path: Path) -> None:
    hint = "choose another with --data-dir or PAPERTALK_DATA_DIR"
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    with pytest.raises(ConfigurationError, match=f"^the data directory {a_file} is a file, not a directory: {hint}$"):
        ensure_data_dir(a_file)
    with pytest.raises(ConfigurationError, match=f"^the data directory {a_file}/data cannot be used \\(.+\\): {hint}$"):
        ensure_data_dir(a_file / "data")
    new = tmp_path / "a" / "b"
    ensure_data_dir(new)
    assert new.is_dir() and not list(new.iterdir())  # created, and the write probe left nothing behind


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to a read-only directory")
def test_a_read_only_data_dir_is_one_clear_error(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    with pytest.raises(ConfigurationError, match=r"cannot be used \(Permission denied\)"):
        ensure_data_dir(locked)


# The same problems through the command line: exit code 2, one line on stderr, no traceback.


def test_cli_bad_value_unknown_name_and_bad_dotenv_line(tmp_path: Path) -> None:
    assert (
        one_error_line(run_cli("stats", PAPERTALK_LLM__BACKEND="foo"))
        == "PAPERTALK_LLM__BACKEND='foo' is not allowed: use one of extractive, openai"
    )
    assert one_error_line(run_cli("papers", "list", PAPERTALK_LLM__BACKEN="openai")).startswith(
        "PAPERTALK_LLM__BACKEN is not a papertalk setting: did you mean PAPERTALK_LLM__BACKEND?"
    )
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / ".env").write_text("OPENAI_API_KEY=x\nPAPERTALK_WIBBLEQUUX=1\n")
    assert one_error_line(run_cli("stats", cwd=folder)).startswith(
        "PAPERTALK_WIBBLEQUUX (in .env) is not a papertalk setting: use PAPERTALK_DATA_DIR"
    )
    (folder / ".env").write_text('OPENAI_API_KEY=x\nPAPERTALK_LLM__MODEL="gpt\n')
    assert one_error_line(run_cli("stats", cwd=folder)) == (
        ".env line 2 (PAPERTALK_LLM__MODEL) is not NAME=value (an unclosed quote?): fix or remove it"
    )


def test_cli_runs_with_a_dotenv_of_other_tools_and_help_works_whatever_the_environment(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-x\nOPENAI_BASE_URL=http://127.0.0.1:9/v1\nOTHER=1\n")
    listed = run_cli("papers", "list", "--json")
    assert listed.returncode == 0 and listed.stdout.strip() == "[]", listed.stderr
    helped = run_cli("ask", "--help", PAPERTALK_LLM__BACKEND="foo")
    assert helped.returncode == 0 and "Traceback" not in helped.stderr and "--topic" in helped.stdout


def test_cli_data_dir_that_does_not_work_is_one_line(tmp_path: Path) -> None:
    hint = "choose another with --data-dir or PAPERTALK_DATA_DIR"
    assert one_error_line(run_cli("--data-dir", "/proc/nope", "stats")) == (
        f"the data directory /proc/nope cannot be used (No such file or directory): {hint}"
    )
    a_file = tmp_path / "catalog.txt"
    a_file.write_text("")
    assert one_error_line(run_cli("papers", "list", PAPERTALK_DATA_DIR=str(a_file))) == (
        f"the data directory {a_file} is a file, not a directory: {hint}"
    )
    unwritable = Path("/sys/kernel")  # sysfs: no new files there, not even for root
    if unwritable.is_dir():
        assert one_error_line(run_cli("--data-dir", unwritable, "stats")) == (
            f"the data directory {unwritable} cannot be used (Permission denied): {hint}"
        )
