"""The package as users get it: build the sdist and wheel, install the wheel in a clean
virtual environment (no dev tools, no editable source) and run ``loopwright demo`` from it."""

from __future__ import annotations

import email
import os
import pwd
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _environment(tmp_path: Path) -> dict[str, str]:
    # The suite points HOME at a temp dir; pip's download cache stays the user's own.
    real_home = pwd.getpwuid(os.getuid()).pw_dir
    environment = {k: v for k, v in os.environ.items() if not k.startswith("LOOPWRIGHT_MODEL")}
    environment.setdefault("PIP_CACHE_DIR", str(Path(real_home) / ".cache" / "pip"))
    environment.update(HOME=str(tmp_path / "home"), LOOPWRIGHT_HOME=str(tmp_path / "lw-home"))
    return environment


def _run(command: list[str], tmp_path: Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=_environment(tmp_path),
        timeout=540,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = _run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], out)
    if built.returncode != 0 and "Could not find a version" in built.stdout + built.stderr:
        pytest.skip("the package index is unreachable, so the build backend cannot install")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (found,) = out.glob("loopwright-*.whl")
    return found


def test_the_wheel_declares_ranges_a_license_and_project_metadata(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = email.message_from_string(archive.read(metadata_name).decode())
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("Project-URL") and metadata.get_all("Classifier")
    requirements = metadata.get_all("Requires-Dist") or []
    assert requirements and not [r for r in requirements if "==" in r.split(";")[0]]
    assert any(r.startswith("httpx2") and "anthropic" in r for r in requirements)
    assert "loopwright/cli/demo_script.yaml" in names and "loopwright/py.typed" in names


@pytest.mark.timeout(600)
def test_the_wheel_installs_in_a_clean_venv_and_runs_the_demo(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "clean-venv"
    venv.create(target, with_pip=True, clear=True)
    python = target / "bin" / "python"
    installed = _run(
        [str(python), "-m", "pip", "install", "--quiet", str(wheel),
         "-c", str(REPO / "requirements-dev.lock")],
        tmp_path,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    project = tmp_path / "somewhere"
    project.mkdir()
    demo = _run([str(target / "bin" / "loopwright"), "demo"], tmp_path, cwd=project)
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    assert "demo finished" in demo.stdout
    # It ran the installed copy, not this checkout.
    where = _run([str(python), "-c", "import loopwright; print(loopwright.__file__)"], tmp_path)
    assert str(target) in where.stdout and str(REPO / "src") not in where.stdout
