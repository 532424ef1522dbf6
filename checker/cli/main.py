"""Command line: parse options, call one stage, map exceptions to exit codes.

Exit codes: 0 verified / valid; 1 verification found problems; 2 bad usage or unreadable input.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

import checker
from checker import __version__
from checker.format.errors import DriftboardError, UsageError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

F = TypeVar("F", bound=Callable[..., Any])
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


def format_option(f: F) -> F:
    """`--format text|json` for every reporting command."""
    return click.option(
        "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
        help="Print findings as text lines or as one JSON document.",
    )(f)


LEAN_COMMANDS = ("validate", "verify", "import")
"""Commands that only check or import logs: run as a program, they build the format models lean (`main`)."""


def main() -> None:
    """The `driftboard` program (and `python -m checker`): the command line, started lean where it can be.

    The format models' field descriptions come from their attribute docstrings, which pydantic reads
    by parsing each model's source: about 0.05-0.1 s of start-up that validating, scoring and writing
    logs never use. A program whose command is one of `LEAN_COMMANDS` builds the models without
    them (`checker.FIELD_DOCSTRINGS`); `cli` called in-process (tests) always has them.
    """
    if len(sys.argv) > 1 and sys.argv[1] in LEAN_COMMANDS:
        checker.FIELD_DOCSTRINGS = False
    cli()


def run_stage(fn: Callable[[], int]) -> None:
    """Call a stage and exit with its code; expected failures print one line, never a traceback."""
    try:
        code = fn()
    except UsageError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    except DriftboardError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    sys.exit(code)


PLUGIN_GROUP = "driftboard.commands"
"""Entry-point group of commands installed by other packages (`driftboard bench`, from `tools/`)."""

PLUGIN_HINTS = {"bench": "the benchmarks are developer tools: install them with `pip install -e tools/` (or `make test`)"}
"""Commands documented for plugins that may be absent, with how to get them."""


class PluginGroup(click.Group):
    """The command group, plus commands that other packages register under `PLUGIN_GROUP`.

    Plugins are looked up only when a command is not built in (or for `--help`), so a built-in
    command never pays for reading the installed packages' metadata.
    """

    def _plugins(self) -> dict[str, EntryPoint]:
        from importlib.metadata import entry_points

        return {ep.name: ep for ep in entry_points(group=PLUGIN_GROUP) if ep.name not in self.commands}

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Built-in commands and installed plugins, sorted."""
        return sorted({*super().list_commands(ctx), *self._plugins()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """A built-in command, else a plugin's (loaded now), else a hint for a documented plugin that is absent."""
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        plugin = self._plugins().get(cmd_name)
        if plugin is not None:
            loaded: click.Command = plugin.load()
            return loaded
        if cmd_name in PLUGIN_HINTS:
            raise click.UsageError(f"no command {cmd_name!r} here: {PLUGIN_HINTS[cmd_name]}")
        return None


@click.group(cls=PluginGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, prog_name="driftboard")
def cli() -> None:
    """Driftboard: verify agent-run logs and publish the drift leaderboard."""


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@format_option
def validate(paths: tuple[Path, ...], fmt: str) -> None:
    """Check submission folders or run files against the canonical format.

    Reports every problem as `path:line: message`, then a total.

    \b
    Example:
        driftboard validate submissions/
        driftboard validate submissions/driftboard-microworld-agent/runs/full-s1.jsonl --format json
    """
    from checker.cli.commands import validate_command

    run_stage(lambda: validate_command(list(paths), fmt))


@cli.command()
@click.option("--out", "out", type=click.Path(path_type=Path), required=True, help="Folder to write the schemas to.")
def schema(out: Path) -> None:
    """Write the JSON Schemas of the canonical format and of the results files; list the files written.

    \b
    Writes into --out:
        event.schema.json       one line of a run log (every event type)
        submission.schema.json  submission.yaml (the manifest)
        prereg.schema.json      prereg.yaml (the pre-registration)
        results.schema.json     build/results/<id>.json (what `driftboard verify` writes)
        release.schema.json     releases/<id>.json (what `driftboard release` writes)

    \b
    Example:
        driftboard schema --out build/schema
    """
    from checker.cli.commands import schema_command

    run_stage(lambda: schema_command(out))


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--profile", type=click.Choice(["driftboard", "arg-v1.0", "drift-bench-v1"]), default=None,
              help="Scoring profile (default: the one the pre-registration names, else driftboard).")
@click.option("--problems", "problems", multiple=True, type=click.Path(path_type=Path),
              help="Constraint problem set or completion task set folder (repeatable; default: the repository's "
                   "problems/).")
@click.option("--out", "out", type=click.Path(path_type=Path), default=Path("build/results"), show_default=True,
              help="Folder for the results files (one per submission, plus index.json).")
@click.option("--no-results", is_flag=True, help="Do not write results files.")
@click.option("--jobs", default=1, show_default=True, type=click.IntRange(1, 64), help="Worker processes.")
@click.option("--shard", default=None, metavar="K/N", help="Verify only shard K of N (sorted submissions).")
@click.option("--cache/--no-cache", default=True, show_default=True,
              help="Reuse results of unchanged submissions.")
@click.option("--cache-dir", type=click.Path(path_type=Path), default=None,
              help="Cache folder (default: $DRIFTBOARD_CACHE_DIR, else ~/.cache/driftboard).")
@format_option
def verify(paths: tuple[Path, ...], profile: str | None, problems: tuple[Path, ...], out: Path, no_results: bool,
           jobs: int, shard: str | None, cache: bool, cache_dir: Path | None, fmt: str) -> None:
    """Replay, gate and score submissions; recompute every number from the logs.

    Writes one results file per submission into --out (and index.json). Exit 0 when every
    log is well-formed and every claimed figure matches; INVALID runs are results, not failures.
    A progress bar goes to stderr when stderr is a terminal (text format only).

    \b
    Example:
        driftboard verify submissions/
        driftboard verify submissions/ --jobs 2 --shard 1/2 --out build/shard-1
        driftboard verify submissions/drift-bench-examples --problems problems/drift-bench-v1
    """
    from checker.cli.commands import verify_command

    run_stage(lambda: verify_command(list(paths), profile, list(problems), fmt, None if no_results else out,
                                     jobs, shard, cache, cache_dir))


@cli.command()
@click.option("--submissions", "submissions", type=click.Path(path_type=Path), default=Path("submissions"),
              show_default=True, help="Folder of submissions to verify when results are missing or stale.")
@click.option("--results", "results", type=click.Path(path_type=Path), default=Path("build/results"),
              show_default=True, help="Verified results folder (written by `driftboard verify`).")
@click.option("--out", "out", type=click.Path(path_type=Path), default=Path("build/site"), show_default=True,
              help="Where to write the static site.")
@click.option("--verify/--no-verify", "verify_first", default=True, show_default=True,
              help="Verify the submissions (cached) before rendering; --no-verify renders the results folder as it is "
                   "(e.g. after `driftboard merge`).")
@click.option("--project", "project", type=click.Path(path_type=Path), default=None,
              help="Project root holding mkdocs.yml, site/ and CHANGELOG.md [default: the current folder when it "
                   "holds mkdocs.yml].")
@click.option("--job", "job", default=None, metavar="ID",
              help="The publishing job's id (default: $DRIFTBOARD_JOB): results must have been computed by this job.")
def build(submissions: Path, results: Path, out: Path, verify_first: bool, project: Path | None,
          job: str | None) -> None:
    """Render verified results into pages and build the static site (mkdocs build --strict).

    Publication computes, never reads: the results folder must carry the binding.json that verify or
    merge wrote (this job, this checker's code, this tree's logs); otherwise nothing is built (exit 1).

    Prints how many pages it built, where, and the site URL the pages cite.

    \b
    Example:
        driftboard build --out build/site
    """
    from checker.cli.commands import build_command

    run_stage(lambda: build_command(submissions, results, out, verify_first, project, job))


@cli.command()
@click.option("--out", "out", type=click.Path(path_type=Path), default=Path("build/site"), show_default=True,
              help="The built site to serve.")
@click.option("--port", default=8000, show_default=True, help="Port on 127.0.0.1.")
def serve(out: Path, port: int) -> None:
    """Preview the built site on http://127.0.0.1:PORT/ (build it first with `driftboard build`)."""
    from checker.cli.workdir import check_workdir
    from checker.render.serve import serve_site

    def serve_here() -> int:
        check_workdir("serve", {"--out": out})
        return serve_site(out, port)

    run_stage(serve_here)


@cli.command()
@click.argument("ref")
@click.option("--results", "results", type=click.Path(path_type=Path), default=Path("build/results"),
              show_default=True, help="Verified results folder.")
@click.option("--releases", "releases", type=click.Path(path_type=Path), default=Path("releases"),
              show_default=True, help="Release files: a cell's citation names the release that published it.")
@format_option
def cite(ref: str, results: Path, releases: Path, fmt: str) -> None:
    """Print a BibTeX entry and a plain-text citation for SUBMISSION-ID[/CELL].

    JSON: the BibTeX, the text, the permalink, the logs' SHA-256, the result digest and the checker version.

    \b
    Example (after `driftboard verify submissions/`):
        driftboard cite driftboard-microworld-agent/FULL
        driftboard cite drift-bench-examples --format json
    """
    from checker.cli.cite import cite_command

    run_stage(lambda: cite_command(ref, results, fmt, releases))


@cli.command()
@click.option("--submissions", "submissions", type=click.Path(path_type=Path), default=Path("submissions"),
              show_default=True, help="The committed submissions folder the results were verified from.")
@click.option("--results", "results", type=click.Path(path_type=Path), default=Path("build/results"),
              show_default=True, help="Verified results folder (written by `driftboard verify`).")
@click.option("--releases", "releases", type=click.Path(path_type=Path), default=Path("releases"),
              show_default=True, help="Folder of release files (committed to the repository).")
@format_option
def release(submissions: Path, results: Path, releases: Path, fmt: str) -> None:
    """Record the verified results of the committed tree as releases/<date>-<commit>.json (maintainers).

    The release id is the commit's date and short id (from git, never the clock); the file lists every
    cell's cited figures, what the previous release published and this one withdrew, and a digest.
    Commit the file: the site archives each release's figures and diffs consecutive releases.

    \b
    Example (on the published branch, after `driftboard verify submissions/`):
        driftboard release
        git add releases/ && git commit -m "Release"
    """
    from checker.cli.commands import release_command

    run_stage(lambda: release_command(submissions, results, releases, fmt))


@cli.command()
@click.argument("shards", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(path_type=Path), required=True, help="Merged results folder.")
@click.option("--job", "job", default=None, metavar="ID",
              help="The publishing job's id (default: $DRIFTBOARD_JOB): each shard must have been verified by this job.")
def merge(shards: tuple[Path, ...], out: Path, job: str | None) -> None:
    """Combine shard results folders into exactly the bytes a single verify run writes.

    Each shard is accepted only when its binding.json (written by `verify --shard`) names this job and
    this checker's code, lists every results file with its bytes, and its inputs are this tree's logs.

    \b
    Example (after `driftboard verify submissions/ --shard K/2 --out build/shard-K` for K = 1, 2):
        driftboard merge build/shard-1 build/shard-2 --out build/results
    """
    from checker.pipeline.shard import merge_command

    run_stage(lambda: merge_command(list(shards), out, job))


@cli.command()
@click.option("--base", "base", required=True, help="Git ref the pull request targets (e.g. origin/main).")
@click.option("--head", "head", default="HEAD", show_default=True, help="Git ref of the pull request.")
@click.option("--summary", "summary", type=click.Path(path_type=Path), default=None,
              help="Also write the Markdown job summary here (e.g. $GITHUB_STEP_SUMMARY).")
@click.option("--problems", "problems", multiple=True, type=click.Path(path_type=Path),
              help="Constraint problem set folder (repeatable).")
@click.option("--maintainer", is_flag=True,
              help="A maintainer's pull request: changes outside a submission's whitelist are warnings (edits of "
                   "merged run logs and pre-registrations still fail).")
@format_option
def ci(base: str, head: str, summary: Path | None, problems: tuple[Path, ...], maintainer: bool, fmt: str) -> None:
    """Run locally what the pull-request check runs: judge the whole diff, validate, verify, summarise.

    A submission pull request may only add a new folder with submission.yaml + prereg.yaml, add run
    logs (and their manifest entries) to one submission whose prereg.yaml is merged, or add its
    withdrawal.yaml; every other changed file fails with a message naming it and the rule.
    Prints the Markdown summary; with --format json, the document the summary is rendered from.

    \b
    Example:
        driftboard ci --base origin/main
    """
    from checker.cli.ci import ci_command

    run_stage(lambda: ci_command(base, head, summary, list(problems), fmt, maintainer))


@cli.command("ci-history")
@click.option("--head", "head", default="HEAD", show_default=True, help="Tip of the published branch.")
@click.option("--since", "since", default=None,
              help="Check only first-parent commits after this one (default: the commit pyproject.toml records in "
                   "[tool.driftboard] two-pr-rule-since, where the rule begins; the whole history when absent).")
@format_option
def ci_history(head: str, since: str | None, fmt: str) -> None:
    """Check the two-pull-request rule on the branch's first-parent history (what the publish job runs).

    Every first-parent commit that adds or changes run logs must find the submission's
    prereg.yaml, byte for byte, in its first parent. Exits 1 naming each commit that does not.

    \b
    Example:
        driftboard ci-history
        driftboard ci-history --head origin/main
    """
    from checker.cli.ci import ci_history_command

    if since is None:
        from checker.cli.history_since import default_since

        since, note = default_since(Path("."))
        click.echo(f"ci-history: {note}", err=True)
    run_stage(lambda: ci_history_command(head, since, fmt))


@cli.command("ci-summary")
@click.argument("verify_json", type=click.Path(path_type=Path))
@click.option("--annotations/--no-annotations", default=True, show_default=True,
              help="Also print GitHub `::error file=...,line=...::` annotations.")
def ci_summary(verify_json: Path, annotations: bool) -> None:
    """Turn `driftboard verify --format json` output into a Markdown job summary (+ annotations).

    Exits 1 when the verify document reports failing problems (format errors, chain breaks,
    disagreeing claims), else 0.
    """
    from checker.cli.ci import ci_summary_command

    run_stage(lambda: ci_summary_command(verify_json, annotations))


@cli.command()
@click.option("--out", "out", type=click.Path(path_type=Path), default=Path("submissions"), show_default=True,
              help="Folder to write the baseline submissions into.")
def baselines(out: Path) -> None:
    """Regenerate Driftboard's synthetic reference baselines, byte-identically.

    \b
    Example:
        driftboard baselines --out submissions/
    """
    from checker.harness.baselines import baselines_command

    run_stage(lambda: baselines_command(out))


@cli.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--format", "storage", type=click.Choice(["zstd", "gzip"]), default="zstd", show_default=True,
              help="Compression: Zstandard (.jsonl.zst, smaller and faster to read) or gzip (.jsonl.gz).")
def compress(folder: Path, storage: str) -> None:
    """Store a submission's plain run logs compressed, and rename them in its submission.yaml.

    Results, digests and citations stay the same: they are those of the decompressed lines.

    \b
    Example:
        driftboard compress submissions/drift-bench-examples
    """
    from checker.cli.compress import compress_command

    run_stage(lambda: compress_command(folder, "zstd" if storage == "zstd" else "gzip"))


@cli.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--url-base", required=True, help="Where the logs will be served: https://..., ending with /.")
@click.option("--upload-dir", type=click.Path(path_type=Path), required=True,
              help="Folder (outside the repository) the logs are moved to, for you to upload.")
def reference(folder: Path, url_base: str, upload_dir: Path) -> None:
    """Store a submission's run logs outside the repository, by SHA-256, size and URL (blobs: in submission.yaml).

    Results, digests and citations stay the same: verify fetches each log and checks its bytes first.

    \b
    Example:
        driftboard reference submissions/drift-bench-examples --upload-dir /tmp/drift-bench-examples-upload \\
            --url-base https://github.com/YOU/driftboard/releases/download/drift-bench-examples-runs/
    """
    from checker.cli.reference import reference_command

    run_stage(lambda: reference_command(folder, url_base, upload_dir))


@cli.group("import")
def import_() -> None:
    """Convert native outputs (ARG stores, DRIFT-Bench transcripts/databases, Inspect logs, τ-bench trajectories).

    Each import writes a canonical submission folder.
    """


@import_.command("drift-bench")
@click.argument("srcs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="SRC...")
@click.option("--problems", "problems", required=True, type=click.Path(path_type=Path),
              help="DRIFT-Bench problems folder (searched recursively for <problem_id>.json).")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="submissions/<id> to create.")
def import_drift_bench(srcs: tuple[Path, ...], problems: Path, out: Path) -> None:
    """Import DRIFT-Bench transcript JSONL files (or folders of them) or results SQLite databases.

    \b
    Example:
        driftboard import drift-bench examples/drift-bench/seating_example.jsonl \\
            examples/drift-bench/logic_grid_example.jsonl examples/drift-bench/scheduling_example.jsonl \\
            --problems problems/drift-bench-v1 --out build/drift-bench-import
    """
    from checker.cli.commands import imported
    from checker.importers.drift_bench import import_submission

    run_stage(lambda: imported(import_submission(list(srcs), problems, out), out))


@import_.command("inspect")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--problems", "problems", type=click.Path(path_type=Path),
              help="Constraint track: the problem-set folder the eval ran on (-T problems=...); not used for agent logs.")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path),
              help="submissions/<id> to create (absent, empty, or holding only prereg.yaml).")
def import_inspect(logs: tuple[Path, ...], problems: Path | None, out: Path) -> None:
    """Import Inspect AI eval logs (.eval or .json) of driftboard/constraint or driftboard/agent (needs the inspect extra).

    Agent logs are replayed through the harness: one run per game x condition x epoch.

    \b
    Examples:
        driftboard import inspect path/to/logs/*.eval --problems problems/driftboard-suite-v1 \\
            --out submissions/my-inspect-run
        driftboard import inspect path/to/agent-logs/*.eval --out submissions/my-agent-run
    """
    from checker.importers.inspect import import_logs

    run_stage(lambda: import_logs(logs, problems, out))


@import_.command("arg")
@click.argument("state_db", type=click.Path(path_type=Path))
@click.argument("probe_db", type=click.Path(path_type=Path))
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="submissions/<id> to create.")
def import_arg(state_db: Path, probe_db: Path, out: Path) -> None:
    """Import every run of an ARG store pair (state.db + probe.db), opened read-only.

    \b
    Example:
        driftboard import arg path/to/state.db path/to/probe.db --out submissions/my-arg-run
    """
    from checker.cli.commands import imported
    from checker.importers.arg import import_submission

    run_stage(lambda: imported(import_submission(state_db, probe_db, out), out))


@import_.command("tau-bench")
@click.argument("src", type=click.Path(path_type=Path))
@click.option("--domain", "domain", required=True, type=click.Choice(["airline"]), help="The τ-bench domain of the trajectories.")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="submissions/<id> to create.")
@click.option("--problems", "problems", type=click.Path(path_type=Path), default=None,
              help="The task set folder (default: problems/tau-bench-<domain>).")
@click.option("--source-commit", "source_commit", default=None,
              help="The τ-bench commit the file comes from (needed only for a file the importer does not know).")
def import_tau_bench(src: Path, domain: str, out: Path, problems: Path | None, source_commit: str | None) -> None:
    """Import τ-bench trajectories (a run results JSON file): one completion-track run per trajectory.

    \b
    Example:
        driftboard import tau-bench examples/tau-bench/gpt-4o-airline.json --domain airline \\
            --out submissions/tau-bench-gpt-4o-airline
    """
    from checker.cli.commands import imported
    from checker.importers.tau_bench import import_submission

    run_stage(lambda: imported(import_submission(src, domain, out, problems, source_commit), out))




def _register_scaffold() -> None:
    """`driftboard init` and `driftboard problems` (in `checker.cli.scaffold`, which keeps this module short)."""
    from checker.cli.scaffold import init, problems

    cli.add_command(init)
    cli.add_command(problems)


_register_scaffold()
