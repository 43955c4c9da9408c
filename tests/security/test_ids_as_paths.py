"""Ids become file names: one rule refuses every id that could leave its directory."""

import subprocess
import sys
from pathlib import Path

import pytest

from error_advice import assert_says_what_to_do
from loopwright import Options, run
from loopwright.ids import InvalidIdError, check_id
from loopwright.stores import SessionError
from loopwright.stores.jsonl import JSONLStore
from loopwright.stores.sqlite import SQLiteStore
from loopwright.testing import ScriptedModel, text

BAD_IDS = {
    "parent dirs": "../../../x",
    "slash": "a/b",
    "absolute": "/etc/passwd",
    "trailing newline": "x\n",
    "inner newline": "x\ny",
    "nul": "x\x00y",
    "dot start": ".hidden",
    "dot dot": "..",
    "empty": "",
    "over-long": "a" * 201,
    "space": "a b",
    "backslash": "a\\b",
    "non-ascii lookalike": "\uff41",
}


@pytest.mark.parametrize("bad", list(BAD_IDS.values()), ids=list(BAD_IDS))
def test_check_id_refuses_and_says_what_to_use(bad: str) -> None:
    with pytest.raises(InvalidIdError) as caught:
        check_id(bad)
    assert isinstance(caught.value, ValueError)
    assert_says_what_to_do(caught.value, "letters, digits, '.', '_' and '-'")


def test_check_id_takes_uuids_and_plain_names() -> None:
    for good in ("3b6e2dab-3e13-4f7d-b1f9-0123456789ab", "nightly.run_2", "a" * 200):
        assert check_id(good) == good


@pytest.mark.parametrize("field", ["session_id", "resume"])
@pytest.mark.parametrize("bad", ["../../../x", "x\n", "a/b", "x\x00"])
def test_options_refuse_an_id_that_is_not_a_file_name(field: str, bad: str) -> None:
    with pytest.raises(InvalidIdError, match=f"invalid {field}"):
        Options(model=ScriptedModel([text("hi")]), **{field: bad})  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["../../../x", "x\n", "a/b"])
async def test_every_store_refuses_the_id_before_touching_a_path(tmp_path: Path, bad: str) -> None:
    for store in (JSONLStore(tmp_path / "home", cwd="/p"), SQLiteStore(tmp_path / "s.db")):
        with pytest.raises(SessionError, match="invalid session id"):
            store.lock_path(bad)
        await store.aclose()
    with pytest.raises(SessionError, match="invalid session id"):
        await JSONLStore(tmp_path / "home", cwd="/p").load(bad)
    assert not (tmp_path / "x").exists()


async def test_a_run_with_a_traversing_id_writes_nothing_outside_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with pytest.raises(InvalidIdError):
        await run(
            "go",
            Options(
                model=ScriptedModel([text("hi")]),
                cwd=tmp_path,
                session_id="../../../escaped",
                session_store=f"jsonl:{home}",
            ),
        )
    assert not any(p.name.startswith("escaped") for p in tmp_path.rglob("*"))


def test_the_cli_refuses_a_newline_id_with_a_usage_error(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "loopwright.cli.main", "-p", "go", "--model", "test"]
    done = subprocess.run(
        [*command, "--session-id", "x\n"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "invalid session_id" in done.stderr and "\\n" in done.stderr


def test_the_sandbox_quarantine_directory_refuses_a_traversing_id(tmp_path: Path) -> None:
    from loopwright.session.assemble import session_data_dir

    for bad in ("../../../x", "..", "a/../../b", "x\n"):
        with pytest.raises(InvalidIdError):
            session_data_dir(tmp_path, bad)
    inside = session_data_dir(tmp_path, "ok-id")
    assert inside.name == "ok-id" and ".." not in inside.parts
