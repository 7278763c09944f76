"""The subcommands' entry points (``report``, ``compare``, ``plan``, ``audit``) and their shared CLI plumbing (:mod:`.cli_common`); nothing imports a command module but the CLI."""
