from checker.cli import cli

cli()
