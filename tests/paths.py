"""Where the shared data and models lie: `../shared` beside the project, as in CI."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
MODELS = SHARED / "models"
UD = SHARED / "data" / "ud"
