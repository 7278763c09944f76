"""The package's one logger: the CLI's one-line format, braces kept, exit code returned."""

import io

from gpassk_oc.log import fail, logger, use_cli_format


def test_cli_format_is_one_plain_line_per_message():
    stream = io.StringIO()
    use_cli_format(stream)
    try:
        logger.info("wrote {x}/report.md")  # braces in a message are not fields
        logger.warning("3 samples unjudged")
        code = fail("report.py: --level 150 is not a confidence level")
    finally:
        use_cli_format()  # back to stderr for later tests
    assert stream.getvalue().splitlines() == [
        "wrote {x}/report.md",
        "warning: 3 samples unjudged",
        "error: report.py: --level 150 is not a confidence level",
    ]
    assert code == 2


def test_debug_is_hidden_at_the_default_level():
    stream = io.StringIO()
    use_cli_format(stream)
    try:
        logger.debug("internal detail")
    finally:
        use_cli_format()
    assert stream.getvalue() == ""
