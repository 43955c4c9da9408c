"""The import-linter contracts cover the whole package, including modules added later."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "loopwright"


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return config["tool"]["importlinter"]["contracts"]


def test_every_private_provider_module_is_forbidden_outside_models() -> None:
    (wire,) = [c for c in _contracts() if c["name"] == "Wire formats stay inside models/"]
    forbidden = set(wire["forbidden_modules"])  # type: ignore[arg-type]
    private = {f"loopwright.models.{p.stem}" for p in (PACKAGE / "models").glob("_*.py")}
    private.discard("loopwright.models.__init__")
    missing = sorted(private - forbidden)
    assert not missing, (
        f"add {missing} to forbidden_modules of the 'Wire formats stay inside models/' "
        "contract in pyproject.toml"
    )


def test_every_top_level_module_is_in_the_layers() -> None:
    (layers,) = [c for c in _contracts() if c["name"].startswith("Layering")]  # type: ignore[union-attr]
    named = {
        name.strip()
        for layer in layers["layers"]  # type: ignore[union-attr]
        for name in str(layer).split("|")
    }
    top = {
        f"loopwright.{p.stem if p.is_file() else p.name}"
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    }
    missing = sorted(top - named)
    assert not missing, f"place {missing} in a layer of the Layering contract in pyproject.toml"
