"""Files shipped with the app (the demo conversations, the icon), found through
``importlib.resources`` in the ``explorer.resources`` package, so a checkout, an installed wheel
and the bundle all find them the same way. Imports the standard library only.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

PACKAGE = "explorer.resources"
#: The reverse-DNS id of the launcher entry, the AppStream component and the installed icon.
APP_ID = "org.scourexplorer.ScourExplorer"
ICON_NAME = "scour-explorer"
#: The PNG renderings of the icon that ship beside its SVG.
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def resource_path(*parts: str) -> Path:
    """A file or folder of the resources package, on disk.

    Every supported install (checkout, wheel, bundle) keeps the resources as plain files, so a real
    path is returned rather than a temporary copy.
    """
    root = files(PACKAGE)
    if not isinstance(root, Path):
        raise FileNotFoundError(f"the {PACKAGE} package is not on the file system: {root!r}")
    return root.joinpath(*parts)


def demo_dir() -> Path:
    """The folder of demo conversations."""
    return resource_path("demo")


def icon_svg() -> Path:
    return resource_path("icons", f"{ICON_NAME}.svg")


def icon_png(size: int) -> Path:
    """The icon rendered at ``size`` × ``size`` pixels (one of ``ICON_SIZES``)."""
    if size not in ICON_SIZES:
        raise ValueError(f"no {size} px icon; sizes are {ICON_SIZES}")
    return resource_path("icons", f"{ICON_NAME}-{size}.png")
