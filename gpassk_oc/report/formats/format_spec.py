"""What an output format is: a name, the ``--out`` suffixes that mean it, the subcommands
that write it, and how ``report`` renders a :class:`~gpassk_oc.report.data.report_model.Report`
in it. Each format module defines one :class:`Format`; :mod:`.format_registry` lists them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpassk_oc.report.data.report_model import Report


@dataclass(frozen=True)
class RenderOptions:
    """How ``report`` was asked to render: *ci* False leaves intervals out (markdown,
    html), *descending* lists rows best first by mG-Pass@k (False: ascending, like the
    paper), *drill* names the folder of
    the page's drill-down files (html)."""

    ci: bool = True
    descending: bool = True
    drill: str | None = None


@dataclass(frozen=True)
class Format:
    """One output format (see the module docstring)."""

    name: str
    suffixes: tuple[str, ...]  # lower case, with the dot
    render: Callable[[Report, RenderOptions], str]  # report's renderer
    #: the other subcommands that write it (with their own content): compare, plan
    also_in: tuple[str, ...] = ()
