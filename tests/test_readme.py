"""The README's promises stay true."""

import re
from pathlib import Path

from papertalk.settings import settings_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_readme_configuration_table_matches_the_settings() -> None:
    block = re.search(r"<!-- settings-table:start -->\n(.*?)\n<!-- settings-table:end -->", README, re.S)
    assert block is not None
    assert block.group(1) == settings_table()


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one() -> None:
    setup = README.split("## Set up", 1)[1].split("##", 1)[0]
    commands = re.findall(r"^(\./scripts/\S+)", setup, re.M)
    assert commands == ["./scripts/demo.sh", "./scripts/test.sh"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/test.sh" in ci
    for cmd in commands:
        assert (ROOT / cmd).is_file()
