"""Old home of the scoring modules (0.2.0), now split by job into :mod:`gpassk_oc.core.metrics`,
:mod:`gpassk_oc.core.uncertainty` and :mod:`gpassk_oc.core.runs`. Only the paths 0.2.0
documented remain here, as shims that forward with a ``DeprecationWarning``."""
